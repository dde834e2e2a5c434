// The Experts view's load-balancing story: the rebalance button regenerates the eplb table
// with EPLB from the run's own load, re-runs the layer, and the per-rank imbalance drops.

#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "by_name.h"
#include "gui_test_registry.h"
#include "signal_wait.h"
#include "ui/models/eplb_table_model.h"
#include "ui/run/run_controller.h"
#include "ui/widgets/experts_view.h"
#include "ui/widgets/instance_load_widget.h"
#include "ui/widgets/main_window.h"

namespace moe::ui::test {

namespace {
Scenario hotspot() {
  Scenario s;
  s.name = "hotspot";
  s.routing.kind = RoutingKind::Hotspot;
  s.routing.hotspotFraction = 0.5;
  s.routing.hotspotExperts = 2;
  return s;
}

// The next ExpertLoad the window's Experts view receives.
bool nextLoad(MainWindow& w, ExpertLoad& out, const std::function<void()>& trigger) {
  QSignalSpy spy(w.controller(), &RunController::expertLoadReady);
  trigger();
  if (!waitForFirst(spy, 60000)) return false;
  out = spy.takeFirst().at(0).value<ExpertLoad>();
  return true;
}
}  // namespace

class ExpertsViewTest : public QObject {
  Q_OBJECT
 private slots:
  void rebalanceRegeneratesTheTableAndLowersImbalance() {
    MainWindow w;
    ExpertLoad before;
    // The built-in default scenario is loaded at start; let its load reach the view first.
    ExpertsView* view = byName<ExpertsView>(w, "experts");
    QTRY_VERIFY_WITH_TIMEOUT(!view->load().perExpert.empty(), 60000);
    QVERIFY(nextLoad(w, before, [&] { w.loadScenario(hotspot()); }));
    QCOMPARE(before.redundantExperts, 0);
    QVERIFY(imbalance(before.perRankAfter) > 2.0);  // two hot experts on two ranks
    QTest::qWait(50);                               // let the view take the load
    QVERIFY(view->rebalanceButton()->isEnabled());
    QCOMPARE(view->redundantSpin()->value(), 16);  // one spare slot per rank by default

    ExpertLoad after;
    QVERIFY(
        nextLoad(w, after, [&] { QTest::mouseClick(view->rebalanceButton(), Qt::LeftButton); }));
    QCOMPARE(after.redundantExperts, 16);
    QCOMPARE(after.placePerRank, 5);
    QVERIFY(imbalance(after.perRankAfter) < 1.2);
    QVERIFY(imbalance(after.perRankAfter) < imbalance(before.perRankAfter));
    // The table is in the scenario (explicit, so saving replays it) and in the editor.
    QCOMPARE(w.scenario().eplb.table.size(), std::size_t(64));
    QCOMPARE(w.scenario().eplb.redundantExperts, 16);
    QCOMPARE(w.scenario().eplb.tableFrom, EplbTableSource::Explicit);

    // The grid lists the hot experts' replicas; the instance chart colours them.
    QTest::qWait(50);
    auto* model = view->tableModel();
    QCOMPARE(model->rowCount(), 64);
    int replicated = 0;
    for (int e = 0; e < 64; ++e) replicated += model->colors().replicated(e) ? 1 : 0;
    QVERIFY(replicated >= 2);
  }

  void instanceChartPaintsReplicasInTheirExpertsColour() {
    ExpertLoad L;
    L.perExpert = {90, 10};
    L.table = {{2, 0, 2}, {1, 1, -1}, {1, 3, -1}};
    L.instanceLogical = {0, 1, 0, 2};
    L.perInstanceAfter = {45, 10, 45, 0};
    L.perInstanceBefore = {90, 10, 0, 0};
    L.placePerRank = 2;
    std::vector<int> replicas{2, 1, 1};
    const ExpertColors colors(replicas);
    InstanceLoadWidget wdg;
    wdg.resize(400, 200);
    wdg.setLoad(L, colors);
    const QImage img = wdg.grab().toImage();
    // Sample the middle of instance 0's and instance 2's bars: the same replicated colour.
    const QRectF r = wdg.plotRect();
    const double w = r.width() / 4;
    const int y = static_cast<int>(r.bottom() - 5);
    const QColor a = img.pixelColor(static_cast<int>(r.left() + 0.5 * w), y);
    const QColor b = img.pixelColor(static_cast<int>(r.left() + 2.5 * w), y);
    const QColor single = img.pixelColor(static_cast<int>(r.left() + 1.5 * w), y);
    QCOMPARE(a.rgb(), colors.of(0).rgb());
    QCOMPARE(b.rgb(), colors.of(0).rgb());
    QCOMPARE(single.rgb(), colors.of(1).rgb());
    QCOMPARE(wdg.instanceAt(QPoint(static_cast<int>(r.left() + 2.5 * w), y)), 2);
  }
};

static Register<ExpertsViewTest> reg;

}  // namespace moe::ui::test

#include "experts_view_test.moc"
