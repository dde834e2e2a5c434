// The Metrics view's axes read like a teacher would write them: round ticks without
// trailing zeros ("15000", "0.5"), a value axis that still holds the largest sample, and
// the same time range on all three charts.

#include <QTest>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>

#include "gui_test_registry.h"
#include "ui/widgets/metrics_view.h"

MOE_CHARTS_USE_NAMESPACE

namespace moe::ui::test {

class MetricsViewTest : public QObject {
  Q_OBJECT
 private slots:
  void axesHaveRoundTicksAndOneTimeRange() {
    MetricsView view;
    view.resize(900, 700);
    view.show();
    std::vector<MetricsSample> samples;
    for (int i = 0; i <= 10; ++i) {
      MetricsSample s;
      s.t = static_cast<Time>(i) * 2739000;  // 0 .. 27.39 us in ps
      s.hbmGBps = i == 5 ? 12800.0 : 100.0;
      s.ringFill = 0.0055;
      s.busyCores = 640;
      samples.push_back(s);
    }
    view.append(samples);
    view.refresh();
    const auto views = view.findChildren<QChartView*>();
    QCOMPARE(views.size(), 3);
    double timeMax = -1;
    for (QChartView* v : views) {
      const auto xs = v->chart()->axes(Qt::Horizontal);
      const auto ys = v->chart()->axes(Qt::Vertical);
      QCOMPARE(xs.size(), 1);
      QCOMPARE(ys.size(), 1);
      auto* x = qobject_cast<QValueAxis*>(xs.at(0));
      auto* y = qobject_cast<QValueAxis*>(ys.at(0));
      QVERIFY(x && y);
      QCOMPARE(x->labelFormat(), QStringLiteral("%g"));
      QCOMPARE(y->labelFormat(), QStringLiteral("%g"));
      QVERIFY(x->max() >= 27.39);
      if (timeMax < 0) timeMax = x->max();
      QCOMPARE(x->max(), timeMax);  // one time range for the three charts
    }
    // The bandwidth chart: 12800 GB/s fits under a round maximum.
    auto* bw = qobject_cast<QValueAxis*>(views.at(0)->chart()->axes(Qt::Vertical).at(0));
    QVERIFY(bw->max() >= 12800);
    QCOMPARE(bw->max(), std::round(bw->max() / 1000) * 1000);
  }
};

static Register<MetricsViewTest> reg;

}  // namespace moe::ui::test

#include "metrics_view_test.moc"
