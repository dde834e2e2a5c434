#include "ui/widgets/scenario_editor.h"

#include "ui/style/chrome.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <fstream>

#include "core/machine/hardware_profile.h"
#include "core/machine/hardware_profile_json.h"
#include "core/plan/real_operator_limits.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"
#include "ui/models/field_docs.h"
#include "ui/widgets/view_registry.h"

namespace moe::ui {

namespace {
using nlohmann::json;

// Enumerated fields get a combo box listing their spellings.
QStringList choicesFor(const std::string& path) {
  if (path == "hardware.profile") {
    QStringList l;
    for (const std::string& n : builtinProfileNames()) l << QString::fromStdString(n);
    return l;
  }
  QStringList l;
  for (const std::string& n : enumSpellings(path)) l << QString::fromStdString(n);
  return l;
}

QString valueText(const json& v) {
  return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

void setAt(json& root, const std::string& path, json v) {
  json* node = &root;
  std::size_t start = 0;
  for (std::size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1)
    node = &(*node)[path.substr(start, dot - start)];
  (*node)[path.substr(start)] = std::move(v);
}
}  // namespace

ScenarioEditor::ScenarioEditor(QWidget* parent) : QWidget(parent) {
  auto* buttons = new QHBoxLayout;
  auto* load = new QPushButton(tr("Load JSON…"));
  auto* save = new QPushButton(tr("Save JSON…"));
  auto* apply = new QPushButton(tr("Use this scenario"));
  auto* defaults = new QPushButton(tr("Default scenario"));
  load->setToolTip(tr("Read a scenario file (docs/SCENARIO.md)"));
  save->setToolTip(tr("Write the edited scenario as JSON"));
  apply->setToolTip(tr("Reload the workbench with the edited scenario (only when it is valid)"));
  defaults->setToolTip(tr("Back to the built-in default scenario"));
  buttons->addWidget(load);
  buttons->addWidget(save);
  buttons->addWidget(defaults);
  buttons->addStretch(1);
  buttons->addWidget(apply);
  status_ = new QLabel;
  status_->setWordWrap(true);
  limits_ = new QLabel;
  limits_->setObjectName("realOperatorLimits");
  limits_->setWordWrap(true);
  limits_->setTextFormat(Qt::PlainText);
  groupsHost_ = new QWidget;
  groups_ = new QVBoxLayout(groupsHost_);
  auto* scroll = new QScrollArea;
  scroll->setWidget(groupsHost_);
  scroll->setWidgetResizable(true);
  auto* lay = new QVBoxLayout(this);
  lay->addLayout(buttons);
  lay->addWidget(status_);
  lay->addWidget(limits_);
  lay->addWidget(scroll, 1);
  connect(load, &QPushButton::clicked, this, [this] {
    const QString f =
        QFileDialog::getOpenFileName(this, tr("Load scenario"), {}, tr("Scenario (*.json)"));
    if (!f.isEmpty()) loadFile(f);
  });
  connect(save, &QPushButton::clicked, this, [this] {
    const QString f =
        QFileDialog::getSaveFileName(this, tr("Save scenario"), {}, tr("Scenario (*.json)"));
    if (!f.isEmpty()) saveFile(f);
  });
  connect(defaults, &QPushButton::clicked, this, [this] { setScenario(defaultScenario()); });
  connect(apply, &QPushButton::clicked, this, [this] {
    if (valid_) emit applyRequested(scenario_);
  });
  connect(this, &ScenarioEditor::validityChanged, apply,
          [apply](bool ok) { apply->setEnabled(ok); });
  setScenario(defaultScenario());
}

void ScenarioEditor::setScenario(const Scenario& sc) {
  scenario_ = sc;
  base_ = scenarioToJson(sc);
  // Show every hardware field, not only the overrides: the profile's value is the default.
  json hw = profileToJson(builtinProfile(sc.profileName));
  const json current = profileToJson(sc.hardware);
  for (auto it = current.begin(); it != current.end(); ++it) hw[it.key()] = *it;
  hw.erase("name");
  base_["hardware"]["overrides"] = hw;
  rebuild();
  revalidate();
}

void ScenarioEditor::rebuild() {
  building_ = true;
  fields_.clear();
  while (QLayoutItem* it = groups_->takeAt(0)) {
    delete it->widget();
    delete it;
  }
  auto addGroup = [&](const QString& title, const json& obj, const std::string& prefix) {
    auto* box = new QGroupBox(title);
    auto* form = new QFormLayout(box);
    for (auto& [k, v] : obj.items()) {
      if (v.is_object()) continue;
      addField(form, prefix.empty() ? k : prefix + "." + k, k, v);
    }
    groups_->addWidget(box);
  };
  addGroup(tr("General"), base_, "");
  addGroup(tr("Hardware profile"), json{{"profile", base_["hardware"]["profile"]}}, "hardware");
  addGroup(tr("Hardware fields (override the profile)"), base_["hardware"]["overrides"],
           "hardware.overrides");
  for (const char* g : {"cluster", "model", "routing", "eplb", "rings", "combine", "workload"}) {
    if (!base_.contains(g)) continue;
    if (std::string(g) == "rings") {
      // Each streaming stage's tiling in its own group, whether the scenario is written
      // flat (one tiling for both) or per stage; applying writes it back flat when equal.
      const json& r = base_["rings"];
      for (const char* stage : {"dispatch", "combine"})
        addGroup(tr("Rings: %1").arg(stage), r.contains(stage) ? r[stage] : r,
                 std::string("rings.") + stage);
      continue;
    }
    addGroup(QString(g).replace(0, 1, QString(g).at(0).toUpper()), base_[g], g);
  }
  groups_->addStretch(1);
  building_ = false;
}

void ScenarioEditor::addField(QFormLayout* form, const std::string& path, const std::string& key,
                              const json& value) {
  Field f;
  f.original = value;
  const QStringList choices = choicesFor(path);
  // The text is docs/SCENARIO.md's own row for this field: one source for docs and help.
  const QString doc = fieldDoc(QString::fromStdString(path));
  const QString tip = (doc.isEmpty() ? QString() : doc + "\n\n") +
                      tr("JSON key %1 (see docs/SCENARIO.md)").arg(QString::fromStdString(path));
  if (!choices.isEmpty()) {
    auto* combo = new QComboBox;
    combo->addItems(choices);
    combo->setCurrentText(valueText(value));
    combo->setToolTip(tip);
    connect(combo, &QComboBox::currentTextChanged, this, [this, path](const QString&) {
      if (path == "hardware.profile") {
        // A new profile resets the hardware fields to that profile's values.
        std::string e, p;
        json j = formJson(p, e);
        j["hardware"]["overrides"] = json::object();
        try {
          setScenario(scenarioFromJson(j));
        } catch (const std::exception&) {
          revalidate();
        }
        return;
      }
      revalidate();
      // Another workload is another run: reload the workbench with it at once (when valid).
      if (path == "workload.kind" && valid_) emit applyRequested(scenario_);
    });
    f.editor = combo;
  } else {
    auto* edit = new QLineEdit(valueText(value));
    edit->setToolTip(tip);
    connect(edit, &QLineEdit::textChanged, this, [this] { revalidate(); });
    f.editor = edit;
  }
  f.editor->setObjectName(QString::fromStdString(path));
  f.error = new QLabel;
  f.error->setStyleSheet(textStyle(errorText()));
  f.error->setWordWrap(true);
  f.error->hide();
  auto* cell = new QWidget;
  auto* v = new QVBoxLayout(cell);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(f.editor);
  v->addWidget(f.error);
  auto* label = new QLabel(QString::fromStdString(key));
  label->setToolTip(tip);
  form->addRow(label, cell);
  fields_[path] = f;
}

json ScenarioEditor::formJson(std::string& parseErrorPath, std::string& parseError) const {
  json j = base_;
  const json profile = profileToJson(builtinProfile(j["hardware"]["profile"].get<std::string>()));
  json overrides = json::object();
  for (const auto& [path, f] : fields_) {
    QString text;
    if (auto* c = qobject_cast<QComboBox*>(f.editor)) text = c->currentText();
    if (auto* e = qobject_cast<QLineEdit*>(f.editor)) text = e->text();
    json v;
    if (f.original.is_string()) {
      v = text.toStdString();
    } else {
      try {
        v = json::parse(text.toStdString());
      } catch (const json::exception&) {
        if (parseErrorPath.empty()) {
          parseErrorPath = path;
          parseError = f.original.is_array() ? "must be a JSON array, e.g. [] or [[1, 0]]"
                                             : "must be a number";
        }
        v = f.original;
      }
    }
    const std::string hwPrefix = "hardware.overrides.";
    if (path.rfind(hwPrefix, 0) == 0) {
      const std::string key = path.substr(hwPrefix.size());
      if (!profile.contains(key) || profile[key] != v) overrides[key] = v;  // only what differs
      continue;
    }
    if (path == "hardware.profile") {
      j["hardware"]["profile"] = v;
      continue;
    }
    setAt(j, path, v);
  }
  j["hardware"]["overrides"] = overrides;
  return j;
}

void ScenarioEditor::showError(const std::string& path, const QString& message) {
  // The field whose path is the longest prefix of the error's path: "eplb.table[3][0]"
  // belongs to "eplb.table", "hardware.overrides.hbm_gbps" to that field.
  const Field* best = nullptr;
  std::size_t bestLen = 0;
  for (const auto& [p, f] : fields_)
    if (path.rfind(p, 0) == 0 && p.size() > bestLen &&
        (path.size() == p.size() || path[p.size()] == '.' || path[p.size()] == '[')) {
      best = &f;
      bestLen = p.size();
    }
  if (best) {
    best->error->setText(message);
    best->error->show();
  }
}

void ScenarioEditor::revalidate() {
  if (building_) return;
  for (auto& [p, f] : fields_) f.error->hide();
  std::string parsePath, parseError;
  const json j = formJson(parsePath, parseError);
  QString message;
  if (!parsePath.empty()) {
    message = QString::fromStdString(parsePath + ": " + parseError);
    showError(parsePath, QString::fromStdString(parseError));
  } else {
    try {
      Scenario sc = scenarioFromJson(j);
      checkScenario(sc);
      scenario_ = sc;
    } catch (const InputError& e) {
      message = QString::fromStdString(e.what());
      showError(e.path(), QString::fromStdString(e.rule()));
    } catch (const std::exception& e) {
      message = QString::fromStdString(e.what());
    }
  }
  valid_ = message.isEmpty();
  showOperatorLimits(valid_ ? &scenario_ : nullptr);
  status_->setText(valid_
                       ? tr("<span style='color:%1'>Scenario is valid.</span>").arg(okText().name())
                       : tr("<span style='color:%2'>Invalid: %1 — Run is disabled until "
                            "this is fixed.</span>")
                             .arg(message.toHtmlEscaped(), errorText().name()));
  emit validityChanged(valid_, message);
}

void ScenarioEditor::showOperatorLimits(const Scenario* sc) {
  QStringList lines;
  if (sc) {
    for (const LimitWarning& w : realOperatorWarnings(*sc))
      lines << tr("warning: %1: %2")
                   .arg(QString::fromStdString(w.field), QString::fromStdString(w.message));
    if (const std::string need = hcclBuffsizeLine(*sc); !need.empty())
      lines << QString::fromStdString(need);
  }
  limits_->setText(lines.join("\n"));
  limits_->setVisible(!lines.isEmpty());
  limits_->setToolTip(
      tr("Where this scenario leaves what the real CANN operators accept on "
         "its profile's product; the emulator runs past these limits"));
}

QWidget* ScenarioEditor::fieldEditor(const QString& path) const {
  auto it = fields_.find(path.toStdString());
  return it == fields_.end() ? nullptr : it->second.editor;
}

QLabel* ScenarioEditor::fieldError(const QString& path) const {
  auto it = fields_.find(path.toStdString());
  return it == fields_.end() ? nullptr : it->second.error;
}

bool ScenarioEditor::loadFile(const QString& file) {
  try {
    setScenario(loadScenarioFile(file.toStdString()));
    return true;
  } catch (const std::exception& e) {
    status_->setText(tr("<span style='color:%3'>Cannot load %1: %2</span>")
                         .arg(file, QString(e.what()).toHtmlEscaped(), errorText().name()));
    return false;
  }
}

bool ScenarioEditor::saveFile(const QString& file) const {
  std::ofstream out(file.toStdString());
  out << scenarioToJson(scenario_).dump(2) << "\n";
  return static_cast<bool>(out);
}

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry scenarioViewEntry() {
  return {
      .id = "scenario",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Scenario"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Scenario</h3><p>Every input of the run: cluster size, model shape, routing, "
          "EPLB, ring sizes, hardware. Hover a field for its meaning and range (from "
          "docs/SCENARIO.md). A field with an error turns red and names the rule; Run stays "
          "disabled until the scenario is valid. Apply re-runs with it.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new ScenarioEditor;
        QObject::connect(v, &ScenarioEditor::validityChanged, v,
                         [&host](bool ok, const QString& why) { host.setScenarioValid(ok, why); });
        QObject::connect(v, &ScenarioEditor::applyRequested, v,
                         [&host](const Scenario& sc) { host.loadScenario(sc); });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            auto* v = static_cast<ScenarioEditor*>(w);
            if (!(v->scenario() == c.scenario)) v->setScenario(c.scenario);
          },
      .shotName = "editor",
  };
}

}  // namespace

MOE_VIEW(60, scenarioViewEntry);

}  // namespace moe::ui
