// A/B Compare through the real window and its worker: pin the current run as A, change the
// scenario, run B; the figures are those of a direct core run, both sides show stage
// durations and ring occupancy over time, and a side whose scenario or design is no longer
// current is marked stale, never shown as current.

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

#include "by_name.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/scenario/scenario_json.h"
#include "gui_test_registry.h"
#include "small_scenario.h"
#include "ui/widgets/ab_compare_view.h"
#include "ui/widgets/main_window.h"

MOE_CHARTS_USE_NAMESPACE

namespace moe::ui::test {

namespace {

bool runSide(MainWindow& w, int side) {
  QSignalSpy done(&w, &MainWindow::abDone);
  w.startAb(side);
  return done.wait(120000) || done.count() > 0;
}

int row(QTableWidget* t, const QString& name) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->verticalHeaderItem(r) && t->verticalHeaderItem(r)->text() == name) return r;
  return -1;
}
}  // namespace

class AbCompareTest : public QObject {
  Q_OBJECT
 private slots:
  void pinAChangeRunBSideBySideWithStaleMarks() {
    MainWindow w;
    w.loadScenario(smallScenario());
    AbCompareView* ab = byName<AbCompareView>(w, "ab");
    QVERIFY(byName<QTabWidget>(w, "views")->indexOf(ab) >= 0);
    QVERIFY(runSide(w, 0));
    QVERIFY(ab->hasSide(0));
    QVERIFY(ab->side(0).error.isEmpty());
    QVERIFY(!ab->isStale(0));
    QVERIFY(ab->sideLabel(0)->text().contains("current"));

    // The figures are the core's: a direct run of the same scenario and design.
    {
      const ResolvedScenario rs = ResolvedScenario::resolve(smallScenario());
      auto run = makeLayerRun(rs, Design::Streaming);
      run->runToEnd();
      QCOMPARE(ab->side(0).design, Design::Streaming);
      const int peak = row(ab->table(), "peak ring occupancy (KiB)");
      QVERIFY(peak >= 0);
      QCOMPARE(ab->table()->item(peak, 0)->text(),
               QString::number(static_cast<double>(run->peakRingOccupancy()) / 1024, 'f',
                               run->peakRingOccupancy() % 1024 == 0 ? 0 : 3));
      const int events = row(ab->table(), "events");
      QCOMPARE(ab->table()->item(events, 0)->text(),
               QString::number(run->emulation().sim().eventsRun()));
      QCOMPARE(ab->side(0).stageNames.size(), static_cast<int>(run->stages().size()));
    }

    // Change something: A no longer matches the current scenario and says what changed.
    Scenario b = smallScenario();
    b.rings.setBoth(&RingTiling::queueChunks, 2);
    w.loadScenario(b);
    QVERIFY(ab->isStale(0));
    QVERIFY(ab->sideLabel(0)->text().contains("STALE"));
    QVERIFY(ab->sideLabel(0)->text().contains("rings.queue_chunks"));
    QCOMPARE(ab->table()->item(0, 0)->foreground().color(), QColor(150, 150, 150));

    QVERIFY(runSide(w, 1));
    QVERIFY(!ab->isStale(1));
    QVERIFY(ab->sideLabel(1)->text().contains("current"));
    // Side by side: a delta for the total time, both digests, both sides in both charts.
    const int total = row(ab->table(), "total time (us)");
    QVERIFY(!ab->table()->item(total, 2)->text().isEmpty());
    const int digest = row(ab->table(), "digest");
    QCOMPARE(ab->table()->item(digest, 2)->text(), QString("different"));
    auto* bars = qobject_cast<QAbstractBarSeries*>(ab->stageChart()->chart()->series().at(0));
    QVERIFY(bars);
    QCOMPARE(bars->count(), 2);
    QCOMPARE(ab->ringChart()->chart()->series().size(), 2);
    QVERIFY(!ab->side(1).ringOccupancy.empty());

    // Switching the design makes B stale too.
    QComboBox* designs = byName<QComboBox>(w, "design");
    designs->setCurrentIndex(designs->findData(static_cast<int>(Design::Phased)));
    QVERIFY(ab->isStale(1));
    QVERIFY(ab->sideLabel(1)->text().contains("design streaming → phased"));
  }
};

static Register<AbCompareTest> reg;

}  // namespace moe::ui::test

#include "ab_compare_test.moc"
