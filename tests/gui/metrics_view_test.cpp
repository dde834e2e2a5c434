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
      s.hccsGBps = i == 5 ? 41.0 : 0.0;
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
      QCOMPARE(ys.size(), v == views.at(0) ? 2 : 1);  // bandwidth: links and HBM apart
      auto* x = qobject_cast<QValueAxis*>(xs.at(0));
      QVERIFY(x);
      QCOMPARE(x->labelFormat(), QStringLiteral("%g"));
      for (QAbstractAxis* a : ys) {
        auto* y = qobject_cast<QValueAxis*>(a);
        QVERIFY(y);
        QCOMPARE(y->labelFormat(), QStringLiteral("%g"));
      }
      QVERIFY(x->max() >= 27.39);
      if (timeMax < 0) timeMax = x->max();
      QCOMPARE(x->max(), timeMax);  // one time range for the three charts
    }
    // The bandwidth chart: HBM's 12800 GB/s on its own right axis, under a round maximum,
    // and HCCS's 41 GB/s on the left one, not flattened under HBM's scale.
    QChart* bwChart = views.at(0)->chart();
    auto* links = qobject_cast<QValueAxis*>(bwChart->axes(Qt::Vertical).at(0));
    auto* hbm = qobject_cast<QValueAxis*>(bwChart->axes(Qt::Vertical).at(1));
    QCOMPARE(bwChart->axes(Qt::Vertical).at(1)->alignment(), Qt::AlignRight);
    QVERIFY(hbm->max() >= 12800);
    QCOMPARE(hbm->max(), std::round(hbm->max() / 1000) * 1000);
    QVERIFY(links->max() >= 41);
    QVERIFY2(links->max() <= 100, qPrintable(QString::number(links->max())));
  }
};

static Register<MetricsViewTest> reg;

}  // namespace moe::ui::test

#include "metrics_view_test.moc"
