#include "ui/widgets/metrics_view.h"

#include "ui/run/frame.h"
#include "ui/widgets/chart_column.h"
#include "ui/widgets/view_registry.h"

#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

namespace moe::ui {

namespace {
const char* const kNames[] = {"HCCS (sum)",   "RDMA NIC tx (sum)",  "HBM (sum)",
                              "ring fill %",  "workspace stages %", "cores working",
                              "cores waiting"};
const int kChartOf[] = {0, 0, 0, 1, 1, 2, 2};
// The value axis of each series: its chart's, except HBM's own (index 3). HBM moves some
// 13 TB/s: on the links' axis it flattens HCCS and RDMA to nothing, while the Cluster view
// shows every NIC saturated.
const int kAxisOf[] = {0, 0, 3, 1, 1, 2, 2};
}  // namespace

MetricsView::MetricsView(QWidget* parent) : QWidget(parent) {
  auto* bandwidth = addChart(tr("Link bandwidth by type"), tr("links GB/s"), {Hccs, Nic, Hbm});
  // HBM on its own axis on the right (kAxisOf).
  auto* hbm = new QValueAxis;
  hbm->setTitleText(tr("HBM GB/s"));
  hbm->setRange(0, 1);
  bandwidth->chart()->addAxis(hbm, Qt::AlignRight);
  series_[Hbm]->detachAxis(y_[0]);
  series_[Hbm]->attachAxis(hbm);
  y_[kHbmAxis] = hbm;
  auto* occupancy = addChart(tr("Buffer occupancy"), tr("%"), {RingFill, StageFill});
  occupancy->setToolTip(
      tr("Ring bytes in flight / ring capacity, and workspace-stage bytes "
         "holding data / workspace bytes, sampled by the worker on a grid of "
         "emulated time"));
  auto* cores = addChart(tr("Cores working vs waiting"), tr("cores"), {Busy, Waiting});
  // The three charts share one time axis: only the bottom one names it, which leaves the
  // upper two the room their labels need.
  x_[0]->setTitleVisible(false);
  x_[1]->setTitleVisible(false);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(chartColumn({bandwidth, occupancy, cores}, 9));
  for (auto& p : points_) p.reserve(4096);
}

QChartView* MetricsView::addChart(const QString& title, const QString& yTitle,
                                  std::initializer_list<Series> series) {
  const int chartIndex = kChartOf[*series.begin()];
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignRight);
  auto* x = new QValueAxis;
  x->setTitleText(tr("emulated time (us)"));
  x->setRange(0, 1);
  auto* y = new QValueAxis;
  y->setTitleText(yTitle);
  y->setRange(0, 1);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (Series s : series) {
    auto* line = new QLineSeries;
    line->setName(tr(kNames[s]));
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    series_[s] = line;
  }
  x_[chartIndex] = x;
  y_[chartIndex] = y;
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  view->setToolTip(title + tr(" — sampled by the worker on a grid of emulated time"));
  return view;
}

void MetricsView::clear() {
  for (auto& p : points_) p.clear();
  for (double& m : yMax_) m = 1;
  dirty_ = true;
  refresh();
}

void MetricsView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  refresh();
}

void MetricsView::append(const std::vector<MetricsSample>& samples) {
  for (const MetricsSample& s : samples) {
    const double t = static_cast<double>(s.t) / 1e6;
    const double v[Count] = {s.hccsGBps,
                             s.nicGBps,
                             s.hbmGBps,
                             100.0 * s.ringFill,
                             100.0 * s.stageFill,
                             static_cast<double>(s.busyCores),
                             static_cast<double>(s.waitingCores)};
    for (int i = 0; i < Count; ++i) {
      points_[i].append(QPointF(t, v[i]));
      yMax_[kAxisOf[i]] = std::max(yMax_[kAxisOf[i]], v[i]);
    }
  }
  dirty_ = dirty_ || !samples.empty();
}

void MetricsView::refresh() {
  // Charts re-layout every point on replace(): skip it while hidden, catch up when shown.
  if (!dirty_ || !isVisible()) return;
  dirty_ = false;
  for (int i = 0; i < Count; ++i) series_[i]->replace(points_[i]);
  const double tEnd = points_[0].isEmpty() ? 1 : std::max(1e-3, points_[0].last().x());
  for (int c = 0; c < 3; ++c) {
    // Round ticks, printed without trailing zeros ("14000", "0.5"): the raw ranges gave
    // ticks like "10560.0" and "6.8 13.7 20.5". The three time axes get the same range and
    // so the same ticks.
    x_[c]->setRange(0, tEnd);
    x_[c]->applyNiceNumbers();
    x_[c]->setLabelFormat("%g");
  }
  for (int a = 0; a < 4; ++a) {
    // Three values on a y axis: at 1920x1080 three charts share the view's height, and
    // six ticks of a short axis came out as "...".
    y_[a]->setRange(0, yMax_[a] * 1.1);
    y_[a]->setTickCount(3);
    y_[a]->applyNiceNumbers();
    y_[a]->setLabelFormat("%g");
  }
}

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry metricsViewEntry() {
  return {
      .id = "metrics",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Metrics"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Metrics</h3><p>Link bandwidth in use (HCCS, RDMA, HBM), how full the rings and "
          "workspace slots are, and how many cores work or wait, over emulated time.</p>"),
      .create = [](ViewHost&) -> QWidget* { return new MetricsView; },
      .show = [](QWidget* w, const ViewFeed&) { static_cast<MetricsView*>(w)->refresh(); },
      .append = [](QWidget* w,
                   const Frame& f) { static_cast<MetricsView*>(w)->append(f.newSamples); },
      .clear = [](QWidget* w) { static_cast<MetricsView*>(w)->clear(); },
  };
}

}  // namespace

MOE_VIEW(50, metricsViewEntry);

}  // namespace moe::ui
