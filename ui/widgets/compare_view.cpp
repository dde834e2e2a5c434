#include "ui/widgets/compare_view.h"

#include "ui/style/chrome.h"

#include <QTabWidget>

#include "ui/widgets/part_tabs.h"
#include "ui/widgets/shared_timelines.h"

#include <QFontMetrics>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>

#include "ui/style/palette.h"
#include "ui/widgets/view_registry.h"

namespace moe::ui {

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  model_ = new CompareTableModel(this);
  run_ = new QPushButton(tr("Run phased, streaming and flat"));
  run_->setToolTip(
      tr("Runs both dispatch designs to the end on the current scenario (in a worker thread) and "
         "verifies both against the golden reference"));
  verdict_ = new QLabel(tr("Not run yet."));
  verdict_->setWordWrap(true);
  table_ = new QTableView;
  table_->setModel(model_);
  // Columns as wide as their figures: a stretched column elided "4756.234 us" to "4756.2..." at
  // presenter scale. The last one takes what is left.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setToolTip(tr("Key figures of each dispatch design on the same scenario and gating"));
  chart_ = new QChartView(new QChart);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setToolTip(tr("Duration of each stage, per design"));
  auto* top = new QHBoxLayout;
  top->addWidget(run_);
  top->addWidget(verdict_, 1);
  // Timelines, chart, table and why each on a tab of their own, each the full width (side by
  // side, the chart's stage names and the table's 16-digit digests did not both fit a
  // presenter-scaled window; one under the other, only the timelines were above the fold).
  table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  // Why each design's dispatch and combine took their time: the same lines as
  // `moe-sim run --why`, on a tab of its own.
  why_ = new QLabel;
  why_->setWordWrap(true);
  why_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  why_->setToolTip(
      tr("Each stage's critical path, walked back from its last event: the shares of the "
         "stage's time spent in each role's work, on saturated links and in signals"));
  auto* whyBox = new QGroupBox(tr("Why (critical path)"));
  auto* whyLayout = new QVBoxLayout(whyBox);
  whyLayout->addWidget(why_);
  timelines_ = new SharedTimelines;
  // In ComparePart order, so a part's value is its tab's index.
  parts_ = partTabs({{tr("Timelines"), timelines_},
                     {tr("Stage chart"), chart_},
                     {tr("Table"), table_},
                     {tr("Why"), whyBox}});
  parts_->setTabVisible(static_cast<int>(ComparePart::Why), false);
  chart_->setMinimumHeight(14 * chart_->fontMetrics().height());  // until a result names its rows
  staleLabel_ = new QLabel(
      tr("Stale: these figures are for the previous scenario. Press the button to compare the "
         "current one."));
  staleLabel_->setStyleSheet(textStyle(warningText()) + "font-weight:bold");
  staleLabel_->setWordWrap(true);
  staleLabel_->hide();
  auto* lay = new QVBoxLayout(this);
  lay->addLayout(top);
  lay->addWidget(staleLabel_);
  lay->addWidget(parts_, 1);
  connect(run_, &QPushButton::clicked, this, &CompareView::runRequested);
}

void CompareView::setWorkload(WorkloadKind kind) {
  const bool a2a = kind == WorkloadKind::AlltoallMatmulRs;
  // A result of the other workload would compare the wrong designs: start empty.
  model_->setResult(CompareResult{});
  chart_->chart()->removeAllSeries();
  for (QAbstractAxis* a : chart_->chart()->axes()) {
    chart_->chart()->removeAxis(a);
    delete a;
  }
  chart_->chart()->setTitle({});
  verdict_->setText(tr("Not run yet."));
  why_->clear();
  parts_->setTabVisible(static_cast<int>(ComparePart::Why), false);
  timelines_->setRuns({});
  hasResult_ = false;
  setStale(false);
  run_->setEnabled(true);
  run_->setText(a2a ? tr("Run pipelined and sequential") : tr("Run phased, streaming and flat"));
  run_->setToolTip(
      a2a ? tr("Runs the pipelined fused kernel and the sequential baseline to the end on the "
               "current "
               "scenario (in a worker thread) and verifies both against the reference GEMM")
          : tr("Runs both dispatch designs to the end on the current scenario (in a worker thread) "
               "and "
               "verifies both against the golden reference"));
}

void CompareView::setBusy(const QString& message) {
  verdict_->setText(message);
  run_->setEnabled(false);
}

void CompareView::setStale(bool stale) {
  stale_ = stale && hasResult_;  // nothing shown, nothing stale
  staleLabel_->setVisible(stale_);
  table_->setEnabled(!stale_);
  chart_->setEnabled(!stale_);
  timelines_->setEnabled(!stale_);
  chart_->chart()->setOpacity(stale_ ? 0.35 : 1.0);
}

QString CompareView::verdictText() const {
  return verdict_->text();
}

QString CompareView::whyText() const {
  return why_->text();
}

void CompareView::showPart(ComparePart part) {
  parts_->setCurrentIndex(static_cast<int>(part));
}

ComparePart CompareView::shownPart() const {
  return static_cast<ComparePart>(parts_->currentIndex());
}

void CompareView::fitChartTo(const QBarCategoryAxis& categories) {
  // Title, legend, value axis and its title take about seven lines, and each category two
  // (its name beside its bars): shorter, Qt Charts silently drops category names (at
  // 1920x1080 in presenter mode only two of the six stages were named).
  const int line =
      std::max(QFontMetrics(categories.labelsFont()).height(), chart_->fontMetrics().height());
  chart_->setMinimumHeight((7 + 2 * static_cast<int>(categories.count())) * line);
}

void CompareView::setResult(const CompareResult& r) {
  run_->setEnabled(true);
  // The button names the designs the result shows, whichever workload was set before.
  if (!r.impls.isEmpty()) {
    QString names = r.impls.front();
    for (int i = 1; i < r.impls.size(); ++i)
      names += (i + 1 == r.impls.size() ? tr(" and ") : QStringLiteral(", ")) + r.impls[i];
    run_->setText(tr("Run %1").arg(names));
  }
  hasResult_ = true;
  setStale(false);
  verdict_->setText(r.verdict);
  model_->setResult(r);
  why_->setText(r.why.join("\n\n"));
  parts_->setTabVisible(static_cast<int>(ComparePart::Why), !r.why.isEmpty());
  timelines_->setRuns(r.timelines);
  QChart* chart = chart_->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
  chart->setTitle(r.chartTitle);
  QAbstractBarSeries* series = nullptr;
  double top = 0;
  if (r.stacked) {
    // One bar per design, made of its stages: the bar lengths are the designs' total times.
    series = new QHorizontalStackedBarSeries;
    const QColor colors[] = {roleColor(Role::A2A), roleColor(Role::Gemm),
                             roleColor(Role::ReduceScatter), otherStageSeries()};
    std::vector<double> totals(r.stageUs.size(), 0.0);
    for (int s = 0; s < r.stageNames.size(); ++s) {
      auto* set = new QBarSet(r.stageNames[s]);
      set->setColor(colors[s % 4]);
      for (std::size_t i = 0; i < r.stageUs.size(); ++i) {
        const double v = s < static_cast<int>(r.stageUs[i].size())
                             ? r.stageUs[i][static_cast<std::size_t>(s)]
                             : 0.0;
        *set << v;
        totals[i] += v;
      }
      series->append(set);
    }
    for (double t : totals) top = std::max(top, t);
  } else {
    series = new QHorizontalBarSeries;
    // One colour per design (phased, streaming, flat): with flat in the comparison, two
    // alternating colours gave phased and flat the same purple.
    for (std::size_t i = 0; i < r.stageUs.size(); ++i) {
      auto* set = new QBarSet(r.impls.value(static_cast<int>(i)));
      set->setColor(designSeries(static_cast<int>(i)));
      for (double v : r.stageUs[i]) {
        *set << v;
        top = std::max(top, v);
      }
      series->append(set);
    }
  }
  chart->addSeries(series);
  auto* y = new QBarCategoryAxis;
  y->append(r.stacked ? r.impls : r.stageNames);
  fitChartTo(*y);
  auto* x = new QValueAxis;
  x->setRange(0, top * 1.1 + 1e-9);
  // Round ticks with whole numbers: "684.9 1369.7 2054.6" ran into each other.
  x->applyNiceNumbers();
  x->setLabelFormat("%.0f");
  x->setTitleText(tr("us"));
  chart->addAxis(y, Qt::AlignLeft);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  series->attachAxis(y);
}

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry compareViewEntry() {
  return {
      .id = "compare",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Compare"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Compare</h3><p>Every design of this workload (phased, streaming and flat full-mesh "
          "dispatch/combine, or pipelined vs sequential fused operator) runs to the end on the "
          "same scenario and inputs, each checked against the golden reference. Its tabs: the "
          "timelines draw every run on one time axis, so a longer run is drawn longer; the stage "
          "chart and the table show where the time goes; Why names what each stage waited "
          "on. When the scenario changes, the old figures are marked stale.</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new CompareView;
        QObject::connect(v, &CompareView::runRequested, v, [&host] { host.startCompare(); });
        return v;
      },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            auto* v = static_cast<CompareView*>(w);
            if (c.workloadChanged) v->setWorkload(c.scenario.workload.kind);
            v->setStale(!(c.scenario == c.compared));
          },
      .lessonOpened = [](QWidget*, ViewHost& host) { host.startCompare(); },
  };
}

}  // namespace

MOE_VIEW(70, compareViewEntry);

}  // namespace moe::ui
