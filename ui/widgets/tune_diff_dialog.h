#pragma once
// What Tune would change, asked before it is applied: every field where the tuned scenario
// differs from the current one (old → new), the fields that change what the combine computes
// (not only how fast) marked and explained, and two choices: Apply loads the tuned scenario
// (the run restarts at t = 0), Keep current leaves the scenario and the run as they are.

#include <QDialog>
#include <vector>

#include "core/scenario/scenario.h"
#include "ui/models/scenario_diff.h"

class QPushButton;
class QTableWidget;

namespace moe::ui {

class TuneDiffDialog : public QDialog {
  Q_OBJECT
 public:
  TuneDiffDialog(const Scenario& current, const Scenario& tuned, const QString& summary,
                 QWidget* parent = nullptr);
  const Scenario& tuned() const { return tuned_; }
  const std::vector<FieldChange>& changes() const { return changes_; }
  // One row per change: field, current, tuned, what it changes.
  QTableWidget* table() const { return table_; }
  QPushButton* applyButton() const { return apply_; }
  QPushButton* keepButton() const { return keep_; }
  // True for a field whose change alters the combine's numerics (Tune's numerics knobs).
  static bool changesNumerics(const std::string& path);
  // True for a field Tune searches (either stage's ring knobs included).
  static bool isTuneKnob(const std::string& path);

 private:
  // One row per changed field, numerics changes marked; sized to show every row whole.
  void buildTable();

  Scenario tuned_;
  std::vector<FieldChange> changes_;
  QTableWidget* table_;
  QPushButton* apply_;
  QPushButton* keep_;
};

}  // namespace moe::ui
