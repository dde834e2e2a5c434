#include "ui/widgets/ab_compare_view.h"

#include "ui/style/chrome.h"

#include "ui/models/scenario_diff.h"
#include "ui/widgets/part_tabs.h"
#include "ui/widgets/shared_timelines.h"
#include "ui/widgets/view_registry.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>

namespace moe::ui {

namespace {

const char* kSideName[2] = {"A", "B"};

void clearChart(QChart* chart) {
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
}

}  // namespace

AbCompareView::AbCompareView(QWidget* parent) : QWidget(parent) {
  pin_ = new QPushButton(tr("Pin current run as A"));
  pin_->setToolTip(tr("Runs the current scenario and design to the end and keeps it as A"));
  runB_ = new QPushButton(tr("Run B"));
  runB_->setToolTip(tr("Runs the current scenario and design (change anything first) as B"));
  for (int s = 0; s < 2; ++s) {
    label_[s] = new QLabel;
    label_[s]->setWordWrap(true);
  }
  auto* top = new QHBoxLayout;
  top->addWidget(pin_);
  top->addWidget(label_[0], 1);
  top->addWidget(runB_);
  top->addWidget(label_[1], 1);

  table_ = new QTableWidget(0, 3);
  table_->setHorizontalHeaderLabels({tr("A"), tr("B"), tr("B vs A")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  stages_ = new QChartView(new QChart);
  stages_->setRenderHint(QPainter::Antialiasing);
  stages_->setToolTip(tr("Each stage's duration, A against B"));
  rings_ = new QChartView(new QChart);
  rings_->setRenderHint(QPainter::Antialiasing);
  rings_->setToolTip(tr("Bytes held in all rings together over emulated time, A against B"));
  auto* chartRow = new QWidget;
  auto* charts = new QHBoxLayout(chartRow);
  charts->setContentsMargins(0, 0, 0, 0);
  charts->addWidget(stages_, 1);
  charts->addWidget(rings_, 1);
  // Charts keep the height their labels need (Qt Charts elides them to "..." otherwise, as at
  // presenter scale); their tab scrolls when the window is shorter.
  chartRow->setMinimumHeight(13 * chartRow->fontMetrics().height());
  table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  auto* lay = new QVBoxLayout(this);
  lay->addLayout(top);
  timelines_ = new SharedTimelines;
  // One part to a tab: at 1920x1080 in presenter mode only the timelines fitted above the
  // fold, with the charts and the table below it.
  parts_ =
      partTabs({{tr("Timelines"), timelines_}, {tr("Charts"), chartRow}, {tr("Table"), table_}});
  lay->addWidget(parts_, 1);
  connect(pin_, &QPushButton::clicked, this, [this] { emit runRequested(0); });
  connect(runB_, &QPushButton::clicked, this, [this] { emit runRequested(1); });
  refresh();
}

void AbCompareView::showCharts() {
  parts_->setCurrentIndex(1);
}

void AbCompareView::setCurrent(const Scenario& sc, Design design) {
  current_ = sc;
  design_ = design;
  refresh();
}

void AbCompareView::setBusy(int side) {
  busy_[side] = true;
  refresh();
}

void AbCompareView::setResult(int side, const AbSide& result) {
  busy_[side] = false;
  sides_[side] = result;
  refresh();
}

bool AbCompareView::isStale(int side) const {
  return sides_[side] && (!(sides_[side]->scenario == current_) || sides_[side]->design != design_);
}

void AbCompareView::refresh() {
  refreshLabels();
  refreshTable();
  refreshStageChart();
  refreshRingChart();
  refreshTimelines();
}

void AbCompareView::refreshLabels() {
  for (int s = 0; s < 2; ++s) {
    QString text;
    QString style;
    if (busy_[s]) {
      text = tr("%1: running to the end…").arg(kSideName[s]);
    } else if (!sides_[s]) {
      text = s == 0 ? tr("A: not pinned yet") : tr("B: not run yet");
    } else {
      const AbSide& r = *sides_[s];
      text = QString("%1: %2 %3")
                 .arg(kSideName[s], QString::fromStdString(std::string(designName(r.design))),
                      r.error.isEmpty() ? tr("digest %1").arg(r.digest) : r.error);
      if (isStale(s)) {
        QString diff = scenarioDiffSummary(r.scenario, current_);
        if (r.design != design_)
          diff = (diff.isEmpty() ? QString() : diff + ", ") +
                 tr("design %1 → %2")
                     .arg(QString::fromStdString(std::string(designName(r.design))),
                          QString::fromStdString(std::string(designName(design_))));
        text += tr(" — STALE, not the current scenario (%1)").arg(diff);
        style = textStyle(warningText());
      } else {
        text += tr(" — current");
      }
    }
    label_[s]->setText(text);
    label_[s]->setStyleSheet(style);
  }
  pin_->setEnabled(!busy_[0]);
  runB_->setEnabled(!busy_[1]);
}

void AbCompareView::refreshTable() {
  // Key figures: names from whichever side has them (the MoE layer has buffer figures).
  QStringList names;
  for (int s = 0; s < 2; ++s)
    if (sides_[s] && sides_[s]->figureNames.size() > names.size()) names = sides_[s]->figureNames;
  table_->setRowCount(static_cast<int>(names.size()) + 1);
  table_->setVerticalHeaderLabels(names + QStringList{tr("digest")});
  for (int row = 0; row <= names.size(); ++row) {
    double v[2] = {0, 0};
    bool have[2] = {false, false};
    for (int s = 0; s < 2; ++s) {
      QString cell;
      if (sides_[s] && sides_[s]->error.isEmpty() && row < names.size()) {
        const int i = static_cast<int>(sides_[s]->figureNames.indexOf(names[row]));
        if (i >= 0) {
          v[s] = sides_[s]->figures[static_cast<std::size_t>(i)];
          have[s] = true;
          cell = QString::number(v[s], 'f', v[s] == static_cast<long long>(v[s]) ? 0 : 3);
        }
      } else if (sides_[s] && row == names.size()) {
        cell = sides_[s]->digest;
      }
      auto* item = new QTableWidgetItem(cell);
      // A stale side is greyed out: it is not the current scenario's figure.
      if (isStale(s)) item->setForeground(staleFigure());
      table_->setItem(row, s, item);
    }
    QString delta;
    if (have[0] && have[1] && v[0] != 0)
      delta = QString("%1%2%").arg(v[1] >= v[0] ? "+" : "").arg((v[1] / v[0] - 1) * 100, 0, 'f', 1);
    else if (row == names.size() && sides_[0] && sides_[1])
      delta = sides_[0]->digest == sides_[1]->digest ? tr("same run") : tr("different");
    table_->setItem(row, 2, new QTableWidgetItem(delta));
  }
}

void AbCompareView::refreshStageChart() {
  // Stage durations, grouped by stage.
  QChart* sc = stages_->chart();
  clearChart(sc);
  sc->setTitle(tr("Stage durations (us)"));
  QStringList stageNames;
  for (int s = 0; s < 2; ++s)
    if (sides_[s])
      for (const QString& n : sides_[s]->stageNames)
        if (!stageNames.contains(n)) stageNames << n;
  if (!stageNames.isEmpty()) {
    auto* series = new QHorizontalBarSeries;
    double hi = 1;
    for (int s = 0; s < 2; ++s) {
      if (!sides_[s]) continue;
      auto* set = new QBarSet(QString("%1%2").arg(kSideName[s], isStale(s) ? tr(" (stale)") : ""));
      set->setColor(isStale(s) ? abSideSeries(s).lighter(160) : abSideSeries(s));
      for (const QString& n : stageNames) {
        const int i = static_cast<int>(sides_[s]->stageNames.indexOf(n));
        const double us = i >= 0 ? sides_[s]->stageUs[static_cast<std::size_t>(i)] : 0.0;
        *set << us;
        hi = std::max(hi, us);
      }
      series->append(set);
    }
    sc->addSeries(series);
    auto* cats = new QBarCategoryAxis;
    cats->append(stageNames);
    auto* values = new QValueAxis;
    values->setRange(0, hi * 1.1);
    values->setTickCount(4);
    values->applyNiceNumbers();  // round ticks
    values->setLabelFormat("%.0f");
    sc->addAxis(cats, Qt::AlignLeft);
    sc->addAxis(values, Qt::AlignBottom);
    series->attachAxis(cats);
    series->attachAxis(values);
  }
}

void AbCompareView::refreshRingChart() {
  // Ring occupancy over time.
  QChart* rc = rings_->chart();
  clearChart(rc);
  rc->setTitle(tr("Bytes in all rings (KiB) over time (us)"));
  double tMax = 1, kMax = 1;
  bool any = false;
  for (int s = 0; s < 2; ++s) {
    if (!sides_[s] || sides_[s]->ringOccupancy.empty()) continue;
    auto* line = new QLineSeries;
    line->setName(QString("%1%2").arg(kSideName[s], isStale(s) ? tr(" (stale)") : ""));
    line->setColor(isStale(s) ? abSideSeries(s).lighter(160) : abSideSeries(s));
    // A step function: a value holds until the next change (no ring samples during the
    // experts stage must not draw a slope across it).
    for (const QPointF& p : sides_[s]->ringOccupancy) {
      if (line->count() > 0) line->append(p.x(), line->at(line->count() - 1).y());
      line->append(p);
      tMax = std::max(tMax, p.x());
      kMax = std::max(kMax, p.y());
    }
    rc->addSeries(line);
    any = true;
  }
  // A side ran, yet no ring held a byte: say why the chart is empty rather than show
  // nothing (the fused operator moves its data through workspace slots, not rings).
  if (!any && (sides_[0] || sides_[1])) rc->setTitle(tr("No rings in these runs: nothing to plot"));
  if (any) {
    auto* ax = new QValueAxis;
    // One time axis for both sides, to the longer run's end, on round ticks.
    ax->setRange(0, tMax);
    ax->setTickCount(5);
    ax->applyNiceNumbers();
    ax->setLabelFormat("%.0f");
    auto* ay = new QValueAxis;
    ay->setRange(0, kMax * 1.1);
    ay->applyNiceNumbers();
    ay->setLabelFormat("%.0f");
    rc->addAxis(ax, Qt::AlignBottom);
    rc->addAxis(ay, Qt::AlignLeft);
    for (QAbstractSeries* s : rc->series()) {
      s->attachAxis(ax);
      s->attachAxis(ay);
    }
  }
}

void AbCompareView::refreshTimelines() {
  // Both runs as timelines on one time axis, so the longer one is drawn longer.
  std::vector<RunTimelineData> runs;
  for (int s = 0; s < 2; ++s) {
    if (!sides_[s] || !sides_[s]->error.isEmpty()) continue;
    RunTimelineData d = sides_[s]->timeline;
    if (isStale(s)) d.name += tr(" (stale)");
    runs.push_back(std::move(d));
  }
  timelines_->setRuns(runs);
}

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry abViewEntry() {
  return {
      .id = "ab",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "A/B"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>A/B</h3><p>Pin the current run as A, change anything (a field, the hardware, the "
          "design) and run B: both run to the end, and their timelines (on one time axis), "
          "charts of stage durations and ring occupancy over time, and table of key figures sit "
          "side by side, B against A, each on a tab of its own. A side whose scenario or "
          "design is no longer the current one is marked stale and lists what changed.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new AbCompareView;
        QObject::connect(v, &AbCompareView::runRequested, v,
                         [&host](int side) { host.startAb(side); });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            static_cast<AbCompareView*>(w)->setCurrent(c.scenario, c.design);
          },
      .inLessons = false,
      .shotAfterRuns = true,
  };
}

}  // namespace

MOE_VIEW(80, abViewEntry);

}  // namespace moe::ui
