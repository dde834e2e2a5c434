#pragma once
// The scenario editor: every scenario field, grouped as in the JSON schema, with the
// validation message next to the field as the user types. The form is generated from the
// scenario's own JSON (scenarioToJson), so a new scenario field appears without UI code;
// validation is the core's (scenarioFromJson, validateScenario, checkScenario), whose
// InputError path names the field to flag. Switching the workload kind reloads the run at
// once; other edits wait for "Use this scenario".

#include <QWidget>
#include <map>
#include <nlohmann/json.hpp>

#include "core/scenario/scenario.h"
#include "ui/run/scenario_metatype.h"

class QLabel;
class QComboBox;
class QFormLayout;
class QVBoxLayout;

namespace moe::ui {

class ScenarioEditor : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioEditor(QWidget* parent = nullptr);
  void setScenario(const Scenario& sc);
  bool isValid() const { return valid_; }
  const Scenario& scenario() const { return scenario_; }
  // The field's editor widget (QLineEdit or QComboBox) and its error label, by JSON path
  // such as "model.hidden" or "hardware.overrides.hbm_gbps".
  QWidget* fieldEditor(const QString& path) const;
  QLabel* fieldError(const QString& path) const;
  bool loadFile(const QString& file);
  bool saveFile(const QString& file) const;

 signals:
  // Emitted after every edit; `valid` false means Run must stay disabled.
  void validityChanged(bool valid, const QString& message);
  // The user asked to load the edited scenario into the workbench.
  void applyRequested(const moe::Scenario& sc);

 private:
  struct Field {
    QWidget* editor = nullptr;
    QLabel* error = nullptr;
    nlohmann::json original;  // its value when the form was built: gives the JSON type
  };
  void rebuild();
  void addField(QFormLayout* form, const std::string& path, const std::string& key,
                const nlohmann::json& value);
  void revalidate();
  void showOperatorLimits(const Scenario* sc);
  nlohmann::json formJson(std::string& parseErrorPath, std::string& parseError) const;
  void showError(const std::string& path, const QString& message);

  Scenario scenario_;
  nlohmann::json base_;
  bool valid_ = true;
  std::map<std::string, Field> fields_;
  QVBoxLayout* groups_ = nullptr;
  QWidget* groupsHost_ = nullptr;
  QLabel* status_ = nullptr;
  // The real CANN operators' documented limits the scenario exceeds on its product, and the
  // HCCL_BUFFSIZE they would need (as `moe-sim run` prints them).
  QLabel* limits_ = nullptr;
  bool building_ = false;
};

}  // namespace moe::ui
