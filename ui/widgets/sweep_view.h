#pragma once
// The Sweep view: one or two scenario fields (the editor's fields) with their values, run
// over the current scenario in a worker thread (SweepRunner) with a progress bar and a
// cancel button; a chosen figure as a line chart over one axis (one line per design) or a
// heat map over two (for the chosen design). The point count shows as soon as the axes are
// set; after a run every invalid or failed point is listed with its reason (and a heat map
// cell's tooltip gives it). Clicking a point loads its scenario; the rows save as the same
// CSV `moe-sim sweep --csv` writes.

#include <QWidget>
#include <memory>

#include "core/scenario/scenario.h"
#include "ui/run/scenario_metatype.h"
#include "ui/run/sweep_runner.h"
#include "ui/widgets/qt_charts.h"

MOE_CHARTS_BEGIN_NAMESPACE
class QChartView;
MOE_CHARTS_END_NAMESPACE
MOE_CHARTS_USE_NAMESPACE

class QComboBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QStackedWidget;

namespace moe::ui {

class HeatMapWidget;

class SweepView : public QWidget {
  Q_OBJECT
 public:
  explicit SweepView(SweepRunner* runner, QWidget* parent = nullptr);
  // The scenario sweeps start from (the editor's applied scenario).
  void setScenario(const Scenario& sc);

  // Axis 0 or 1: its field combo (axis 1 starts with "(none)") and its values, as
  // "32768, 65536" (JSON values, bare words as strings) or "from:to:step" / "from:to:*factor".
  QComboBox* fieldCombo(int axis) const { return field_[axis]; }
  QLineEdit* valuesEdit(int axis) const { return values_[axis]; }
  QComboBox* figureCombo() const { return figure_; }
  QComboBox* designCombo() const { return design_; }
  QPushButton* runButton() const { return run_; }
  QPushButton* cancelButton() const { return cancel_; }
  QProgressBar* progressBar() const { return progress_; }
  QLabel* statusLabel() const { return status_; }
  // One line per invalid or failed point of the last run, with its reason; hidden when none.
  QListWidget* problemsList() const { return problems_; }
  HeatMapWidget* heatMap() const { return heat_; }
  QChartView* lineChart() const { return line_; }
  bool showsHeatMap() const;
  const std::shared_ptr<const SweepResult>& result() const { return result_; }

  // Starts the sweep the controls describe; false (and the reason in the status label) when
  // they do not make a valid sweep.
  bool start();
  // Writes the result's rows as CSV (the CLI's bytes). Throws InputError.
  void saveCsv(const QString& path) const;
  // Loads point `index`'s scenario (emits loadRequested), as a click on it does.
  void loadPoint(std::size_t index);

 signals:
  void loadRequested(const moe::Scenario& sc);
  void sweepDone();

 private:
  void onFinished(const std::shared_ptr<const SweepResult>& r);
  // The sweep the controls describe (at most 400 points). Throws InputError.
  std::shared_ptr<const SweepSpec> specFromControls() const;
  // Shows the controls' point count in the progress bar before a run (or why there is none).
  void updatePointCount();
  // The constructor's parts: the axes and figure choice, the Run/Cancel/progress/Save row
  // (widgets made in that order), and the connections of both to the runner.
  QFormLayout* buildAxesForm();
  QHBoxLayout* buildRunRow();
  void connectControls();
  // Draws the chosen figure: a heat map over two axes, else a line per design.
  void redraw();
  void redrawHeatMap(const SweepSpec& spec, const std::string& figure);
  void redrawLines(const SweepSpec& spec, const std::string& figure);
  void chooseCsvFile();

  SweepRunner* runner_;
  Scenario scenario_;
  QComboBox* field_[2];
  QLineEdit* values_[2];
  QComboBox* figure_;
  // The figure box lists the figures a sweep of `spec` reports, keeping the chosen one.
  void fillFigures(const SweepSpec& spec);
  QComboBox* design_;
  QPushButton* run_;
  QPushButton* cancel_;
  QPushButton* save_;
  QProgressBar* progress_;
  QLabel* status_;
  QListWidget* problems_;
  QStackedWidget* charts_;
  QChartView* line_;
  HeatMapWidget* heat_;
  std::shared_ptr<const SweepResult> result_;
  bool running_ = false;
};

}  // namespace moe::ui
