#include "ui/widgets/sweep_view.h"

#include "ui/style/chrome.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <cmath>

#include "core/run/design.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/sweep_point.h"
#include "core/studies/sweep_table.h"
#include "core/util/error.h"
#include "core/util/output_file.h"
#include "ui/models/sweep_problems.h"
#include "ui/style/palette.h"
#include "ui/widgets/heat_map_widget.h"
#include "ui/widgets/view_registry.h"

namespace moe::ui {

using nlohmann::json;

namespace {

const char* kNone = "(none)";

// "a, b, c" as JSON values (a bare word is a string: hotspot), or "from:to:step" and
// "from:to:*factor" as a sweep-file range.
json axisJson(const QString& field, const QString& text) {
  json axis{{"field", field.toStdString()}};
  const QStringList parts = text.split(':');
  if (parts.size() == 3) {
    auto num = [](const QString& s) {
      json v = json::parse(s.trimmed().toStdString(), nullptr, false);
      return v.is_discarded() ? json(s.trimmed().toStdString()) : v;
    };
    QString third = parts[2].trimmed();
    json range{{"from", num(parts[0])}, {"to", num(parts[1])}};
    if (third.startsWith('*'))
      range["factor"] = num(third.mid(1));
    else
      range["step"] = num(third);
    axis["range"] = range;
    return axis;
  }
  json values = json::array();
  for (const QString& token : text.split(',', Qt::SkipEmptyParts)) {
    const std::string t = token.trimmed().toStdString();
    if (t.empty()) continue;
    json v = json::parse(t, nullptr, false);
    values.push_back(v.is_discarded() ? json(t) : v);
  }
  axis["values"] = values;
  return axis;
}

QString valueLabel(const json& v) {
  return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

QString figureText(const std::string& column, double v) {
  if (column.size() > 3 && column.compare(column.size() - 3, 3, "_us") == 0)
    return QString::number(v, 'f', 2) + " us";
  if (column.find("bytes") != std::string::npos) return bytesText(v);
  return QString::number(v, 'f', 0);
}

std::optional<double> figureOf(const SweepRow& row, const std::string& column) {
  const auto it = row.find(column);
  if (it == row.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

SweepView::SweepView(SweepRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
  QFormLayout* form = buildAxesForm();
  QHBoxLayout* buttons = buildRunRow();
  status_ = new QLabel(tr("Choose one or two fields and their values, then run."));
  status_->setWordWrap(true);
  problems_ = new QListWidget;
  problems_->setToolTip(tr("Every point without figures and why (click one to load it)"));
  problems_->setMaximumHeight(110);
  // A reason is read whole: long ones wrap rather than scroll sideways.
  problems_->setWordWrap(true);
  problems_->setResizeMode(QListView::Adjust);
  problems_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  problems_->hide();

  line_ = new QChartView(new QChart);
  line_->setRenderHint(QPainter::Antialiasing);
  line_->setToolTip(tr("Click a point to load that scenario"));
  heat_ = new HeatMapWidget;
  charts_ = new QStackedWidget;
  charts_->addWidget(line_);
  charts_->addWidget(heat_);

  auto* lay = new QVBoxLayout(this);
  lay->addLayout(form);
  lay->addLayout(buttons);
  lay->addWidget(status_);
  lay->addWidget(problems_);
  lay->addWidget(charts_, 1);

  connectControls();
  setScenario(Scenario{});
}

QFormLayout* SweepView::buildAxesForm() {
  auto* form = new QFormLayout;
  for (int a = 0; a < 2; ++a) {
    field_[a] = new QComboBox;
    field_[a]->setToolTip(tr("A scenario field, as named in the editor and docs/SCENARIO.md"));
    values_[a] = new QLineEdit;
    values_[a]->setPlaceholderText(
        tr("values: 4096, 8192  or a range from:to:step / from:to:*factor"));
    auto* row = new QHBoxLayout;
    row->addWidget(field_[a], 1);
    row->addWidget(values_[a], 1);
    form->addRow(a == 0 ? tr("Axis 1 (x)") : tr("Axis 2 (y)"), row);
  }
  figure_ = new QComboBox;
  design_ = new QComboBox;
  design_->setToolTip(tr("The design the heat map shows (the line chart shows every design)"));
  auto* figRow = new QHBoxLayout;
  figRow->addWidget(figure_, 1);
  figRow->addWidget(new QLabel(tr("Design")));
  figRow->addWidget(design_);
  form->addRow(tr("Figure"), figRow);
  return form;
}

QHBoxLayout* SweepView::buildRunRow() {
  run_ = new QPushButton(tr("Run sweep"));
  run_->setToolTip(
      tr("Runs every point on the current scenario, in a worker thread, on every core"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setEnabled(false);
  save_ = new QPushButton(tr("Save CSV…"));
  save_->setEnabled(false);
  save_->setToolTip(tr("The rows as moe-sim sweep --csv writes them"));
  progress_ = new QProgressBar;
  progress_->setFormat(tr("%v / %m points"));
  progress_->setRange(0, 1);
  progress_->setValue(0);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  buttons->addWidget(progress_, 1);
  buttons->addWidget(save_);
  return buttons;
}

void SweepView::connectControls() {
  connect(run_, &QPushButton::clicked, this, [this] { start(); });
  connect(cancel_, &QPushButton::clicked, this, [this] {
    runner_->cancel();
    status_->setText(tr("Cancelling: the points under way finish, the rest are skipped…"));
  });
  connect(save_, &QPushButton::clicked, this, &SweepView::chooseCsvFile);
  connect(figure_, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] { redraw(); });
  connect(design_, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] { redraw(); });
  connect(heat_, &HeatMapWidget::cellClicked, this, [this](int column, int row) {
    if (!result_ || result_->spec->axes.size() != 2) return;
    loadPoint(static_cast<std::size_t>(column) * result_->spec->axes[1].values.size() +
              static_cast<std::size_t>(row));
  });
  connect(runner_, &SweepRunner::progress, this, [this](int done, int total) {
    progress_->setRange(0, total);
    progress_->setValue(done);
  });
  connect(runner_, &SweepRunner::finished, this, &SweepView::onFinished);
  connect(problems_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { loadPoint(item->data(Qt::UserRole).toULongLong()); });
  for (int a = 0; a < 2; ++a) {
    connect(field_[a], QOverload<int>::of(&QComboBox::currentIndexChanged), this,
            [this] { updatePointCount(); });
    connect(values_[a], &QLineEdit::textChanged, this, [this] { updatePointCount(); });
  }
}

void SweepView::setScenario(const Scenario& sc) {
  scenario_ = sc;
  const QString keep[2] = {field_[0]->currentText(), field_[1]->currentText()};
  for (int a = 0; a < 2; ++a) {
    field_[a]->blockSignals(true);
    field_[a]->clear();
    if (a == 1) field_[a]->addItem(kNone);
    for (const std::string& f : sweepableFields(sc)) field_[a]->addItem(QString::fromStdString(f));
    const int i = field_[a]->findText(keep[a]);
    field_[a]->setCurrentIndex(i >= 0 ? i
                                      : (a == 0 ? field_[a]->findText("rings.chunk_bytes") : 0));
    field_[a]->blockSignals(false);
  }
  if (values_[0]->text().isEmpty()) values_[0]->setText("16384:131072:*2");
  design_->blockSignals(true);
  const QString d = design_->currentText();
  design_->clear();
  for (Design des : designsOf(sc.workload.kind))
    design_->addItem(QString::fromStdString(std::string(designName(des))));
  design_->setCurrentIndex(
      std::max(0, design_->findText(d.isEmpty() ? QString::fromStdString(std::string(
                                                      designName(defaultDesign(sc.workload.kind))))
                                                : d)));
  design_->blockSignals(false);
  updatePointCount();
  // The figures this workload's sweep reports, before any sweep ran (the box was empty).
  try {
    fillFigures(*specFromControls());
  } catch (const InputError&) {
    // No valid axes yet: the figures come with the first valid sweep.
  }
}

bool SweepView::showsHeatMap() const {
  return charts_->currentWidget() == heat_;
}

std::shared_ptr<const SweepSpec> SweepView::specFromControls() const {
  json j{{"base", scenarioToJson(scenario_)}, {"axes", json::array()}};
  j["axes"].push_back(axisJson(field_[0]->currentText(), values_[0]->text()));
  if (field_[1]->currentText() != kNone)
    j["axes"].push_back(axisJson(field_[1]->currentText(), values_[1]->text()));
  j["designs"] = json::array();
  for (Design d : designsOf(scenario_.workload.kind))
    j["designs"].push_back(std::string(designName(d)));
  auto spec = std::make_shared<const SweepSpec>(sweepFromJson(j, "."));
  require(spec->pointCount() <= 400, "axes",
          "the view runs at most 400 points (moe-sim sweep runs more)");
  return spec;
}

void SweepView::updatePointCount() {
  if (running_) return;
  try {
    const std::size_t n = specFromControls()->pointCount();
    progress_->setRange(0, static_cast<int>(n));
    progress_->setValue(0);
    progress_->setFormat(tr("%v / %m points"));
    progress_->setToolTip(tr("%1 points, each run for every design").arg(n));
  } catch (const InputError& e) {
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("no points yet"));
    progress_->setToolTip(QString::fromStdString(e.what()));
  }
}

bool SweepView::start() {
  if (running_) return false;
  std::shared_ptr<const SweepSpec> spec;
  try {
    spec = specFromControls();
  } catch (const InputError& e) {
    status_->setText(tr("Not a sweep: %1").arg(QString::fromStdString(e.what())));
    status_->setStyleSheet(textStyle(errorText()));
    return false;
  }
  problems_->clear();
  problems_->hide();
  status_->setStyleSheet("");
  status_->setText(
      tr("Running %1 points on %2 design(s)…").arg(spec->pointCount()).arg(spec->designs.size()));
  progress_->setRange(0, static_cast<int>(spec->pointCount()));
  progress_->setValue(0);
  running_ = true;
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  runner_->rearm();
  QMetaObject::invokeMethod(runner_, [r = runner_, spec] { r->run(spec); });
  return true;
}

void SweepView::fillFigures(const SweepSpec& spec) {
  const QString keep = figure_->currentText();
  figure_->blockSignals(true);
  figure_->clear();
  for (const std::string& c : sweepFigureColumns(spec)) figure_->addItem(QString::fromStdString(c));
  const int k = figure_->findText(keep);
  figure_->setCurrentIndex(k >= 0 ? k : std::max(0, figure_->findText("total_us")));
  figure_->blockSignals(false);
}

void SweepView::onFinished(const std::shared_ptr<const SweepResult>& r) {
  running_ = false;
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  result_ = r;
  save_->setEnabled(true);
  fillFigures(*r->spec);
  std::size_t done = 0;
  for (const auto& rows : r->points) done += rows.empty() ? 0 : 1;
  const std::vector<SweepProblem> problems = sweepProblems(*r);
  problems_->clear();
  for (const SweepProblem& p : problems) {
    auto* item = new QListWidgetItem(p.text, problems_);
    item->setToolTip(p.text);
    item->setData(Qt::UserRole, static_cast<qulonglong>(p.point));
  }
  problems_->setVisible(!problems.empty());
  QString text = tr("%1 of %2 points done").arg(done).arg(r->points.size());
  if (r->cancelled) text += tr(" (cancelled)");
  if (!problems.empty())
    text += tr("; %1 invalid or failed, each listed below with its reason").arg(problems.size());
  status_->setText(text + tr(". Click a point to load its scenario."));
  redraw();
  emit sweepDone();
}

void SweepView::redraw() {
  if (!result_) return;
  const SweepSpec& spec = *result_->spec;
  const std::string figure = figure_->currentText().toStdString();
  if (figure.empty()) return;
  if (spec.axes.size() == 2)
    redrawHeatMap(spec, figure);
  else
    redrawLines(spec, figure);
}

void SweepView::redrawHeatMap(const SweepSpec& spec, const std::string& figure) {
  charts_->setCurrentWidget(heat_);
  const std::string design = design_->currentText().toStdString();
  QStringList xs, ys;
  for (const json& v : spec.axes[0].values) xs << valueLabel(v);
  for (const json& v : spec.axes[1].values) ys << valueLabel(v);
  std::vector<HeatMapWidget::Cell> cells(static_cast<std::size_t>(xs.size() * ys.size()));
  for (std::size_t p = 0; p < result_->points.size(); ++p) {
    const std::size_t col = p / spec.axes[1].values.size();
    const std::size_t row = p % spec.axes[1].values.size();
    HeatMapWidget::Cell& cell = cells[row * static_cast<std::size_t>(xs.size()) + col];
    cell.text = tr("skipped");
    for (const SweepRow& r : result_->points[p]) {
      if (r["design"] != design) continue;
      cell.value = figureOf(r, figure);
      cell.text = cell.value ? figureText(figure, *cell.value)
                             : QString::fromStdString(r["status"].get<std::string>());
      const QString problem = rowProblem(r);
      if (!problem.isEmpty())
        cell.tip = tr("point %1 (%2): %3").arg(p).arg(pointValuesText(spec, p), problem);
    }
  }
  heat_->setData(
      QString("%1, %2").arg(QString::fromStdString(figure), QString::fromStdString(design)),
      QString::fromStdString(spec.axes[0].field), xs, QString::fromStdString(spec.axes[1].field),
      ys, std::move(cells));
}

void SweepView::redrawLines(const SweepSpec& spec, const std::string& figure) {
  charts_->setCurrentWidget(line_);
  QChart* chart = line_->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
  const auto& values = spec.axes[0].values;
  bool numeric = true;
  for (const json& v : values) numeric = numeric && v.is_number();
  auto* ax = new QValueAxis;
  ax->setTitleText(QString::fromStdString(spec.axes[0].field) + (numeric ? "" : tr(" (value #)")));
  auto* ay = new QValueAxis;
  ay->setTitleText(QString::fromStdString(figure));
  chart->addAxis(ax, Qt::AlignBottom);
  chart->addAxis(ay, Qt::AlignLeft);
  double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  bool any = false;
  for (std::size_t d = 0; d < spec.designs.size(); ++d) {
    auto* s = new QLineSeries;
    s->setName(QString::fromStdString(std::string(designName(spec.designs[d]))));
    s->setPointsVisible(true);
    for (std::size_t p = 0; p < result_->points.size(); ++p) {
      if (result_->points[p].size() <= d) continue;
      const auto y = figureOf(result_->points[p][d], figure);
      if (!y) continue;
      const double x = numeric ? values[p].get<double>() : static_cast<double>(p);
      s->append(x, *y);
      xmin = any ? std::min(xmin, x) : x;
      xmax = any ? std::max(xmax, x) : x;
      ymin = any ? std::min(ymin, *y) : *y;
      ymax = any ? std::max(ymax, *y) : *y;
      any = true;
    }
    chart->addSeries(s);
    s->attachAxis(ax);
    s->attachAxis(ay);
    connect(s, &QLineSeries::clicked, this, [this, numeric](const QPointF& at) {
      if (!result_) return;
      const auto& vals = result_->spec->axes[0].values;
      std::size_t best = 0;
      for (std::size_t p = 1; p < vals.size(); ++p) {
        const double xp = numeric ? vals[p].get<double>() : static_cast<double>(p);
        const double xb = numeric ? vals[best].get<double>() : static_cast<double>(best);
        if (std::fabs(xp - at.x()) < std::fabs(xb - at.x())) best = p;
      }
      loadPoint(best);
    });
  }
  const double padX = xmax > xmin ? (xmax - xmin) * 0.05 : 1;
  const double padY = ymax > ymin ? (ymax - ymin) * 0.1 : std::max(1.0, std::fabs(ymax) * 0.1);
  ax->setRange(xmin - padX, xmax + padX);
  ay->setRange(std::max(0.0, ymin - padY), ymax + padY);
  ax->setLabelFormat(numeric ? "%g" : "%.0f");
  ay->setLabelFormat("%g");
  chart->setTitle(
      tr("%1 over %2")
          .arg(QString::fromStdString(figure), QString::fromStdString(spec.axes[0].field)));
}

void SweepView::saveCsv(const QString& path) const {
  require(result_ != nullptr, "Save CSV", "no sweep has run yet");
  const SweepTable table(*result_->spec);
  writeFileAtomically(path.toStdString(), "Save CSV", [&](std::ostream& out) {
    out << table.csvHeader();
    for (const auto& rows : result_->points)
      for (const SweepRow& r : rows) out << table.csvLine(r);
  });
}

void SweepView::chooseCsvFile() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Save sweep CSV"), "sweep.csv", tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  try {
    saveCsv(path);
    status_->setText(tr("Saved %1").arg(path));
  } catch (const InputError& e) {
    status_->setText(QString::fromStdString(e.what()));
  }
}

void SweepView::loadPoint(std::size_t index) {
  if (!result_ || index >= result_->spec->pointCount()) return;
  try {
    const Scenario sc = sweepPointScenario(*result_->spec, sweepPointValues(*result_->spec, index));
    status_->setText(tr("Loaded point %1 into the editor and the live run.").arg(index));
    emit loadRequested(sc);
  } catch (const InputError& e) {
    status_->setText(tr("Point %1 is not a valid scenario: %2").arg(index).arg(e.what()));
  }
}

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry sweepViewEntry() {
  return {
      .id = "sweep",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Sweep"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Sweep</h3><p>Runs the current scenario many times, varying one or two fields "
          "(values separated by commas, or from:to:step, or from:to:*factor), every design, on "
          "every core in a worker thread. One field gives a line per design, two a heat map for "
          "the chosen design. A point whose values break a scenario rule is not run and says "
          "which. Click a point to load its scenario; Save CSV writes what moe-sim sweep "
          "--csv writes.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new SweepView(host.sweepRunner());
        // A clicked sweep point becomes the scenario of the editor and the live run.
        QObject::connect(v, &SweepView::loadRequested, v,
                         [&host](const Scenario& sc) { host.loadScenario(sc); });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            static_cast<SweepView*>(w)->setScenario(c.scenario);
          },
      .inLessons = false,
      .shotAfterRuns = true,
  };
}

}  // namespace

MOE_VIEW(90, sweepViewEntry);

}  // namespace moe::ui
