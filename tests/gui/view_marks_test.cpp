// What the views mark must be what they say: a clicked link in the Cluster view is drawn
// outlined and described in the Inspector; a core with no role has a thin plain border of
// its own (not the "done" border of a core that worked); one server is "1 server"; the
// fused workload's Sweep names its figures before any sweep, and its A/B ring chart says
// why it is empty.

#include <QComboBox>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

#include "by_name.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "gui_test_registry.h"
#include "small_scenario.h"
#include "ui/style/palette.h"
#include "ui/widgets/ab_compare_view.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/cluster_widget.h"
#include "ui/widgets/core_grid_widget.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/sweep_view.h"

MOE_CHARTS_USE_NAMESPACE

namespace moe::ui::test {

namespace {
std::shared_ptr<const Snapshot> startSnapshot(const Scenario& sc) {
  const ResolvedScenario rs = ResolvedScenario::resolve(sc);
  auto run = makeLayerRun(rs, Design::Streaming);
  return std::make_shared<Snapshot>(takeSnapshot(*run, 0));
}
}  // namespace

class ViewMarksTest : public QObject {
  Q_OBJECT
 private slots:
  void clickedLinkIsOutlinedAndInspected() {
    MainWindow w;
    w.resize(1400, 900);
    w.loadScenario(smallScenario());
    w.show();
    ClusterWidget* cw = byName<ClusterWidget>(w, "cluster");
    byName<QTabWidget>(w, "views")->setCurrentWidget(cw);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(w.liveSnapshot() != nullptr);
    // The view gets the snapshot on the window's next redraw tick; until then it has no
    // cards to click (a slower machine clicked on an empty view).
    QTRY_VERIFY(cw->hasSnapshot());
    const auto snap = w.liveSnapshot();
    // The HCCS chord between neighbours 0 and 1: nothing else crosses its middle.
    int link = -1;
    for (std::size_t i = 0; i < snap->links.size() && link < 0; ++i)
      if (snap->links[i].kind == LinkInfo::Kind::Hccs && snap->links[i].srcCard == 0 &&
          snap->links[i].dstCard == 1)
        link = static_cast<int>(i);
    QVERIFY(link >= 0);
    const QPointF a = cw->cardCentre(0), b = cw->cardCentre(1);
    const QPointF mid = (a + b) / 2;
    const QImage before = cw->grab().toImage();
    QTest::mouseClick(cw, Qt::LeftButton, {}, mid.toPoint());
    QCOMPARE(cw->selectedLink(), link);
    // Two pixels beside the line: the black outline now, the pale view before.
    const QPointF n = QPointF(-(b - a).y(), (b - a).x()) / std::hypot((b - a).x(), (b - a).y());
    const QPoint side = (mid + 2.5 * n).toPoint();
    const QImage after = cw->grab().toImage();
    QVERIFY2(qGray(after.pixel(side)) < 80, qPrintable(QString::number(qGray(after.pixel(side)))));
    QVERIFY(qGray(before.pixel(side)) > 150);
    auto* inspector = w.findChild<QTextBrowser*>();
    QVERIFY(inspector);
    QVERIFY2(inspector->toPlainText().contains("both directions"),
             qPrintable(inspector->toPlainText()));
    // Another selection takes the outline away.
    byName<CardView>(w, "card")->showCard(0);
    QTest::mouseClick(cw, Qt::LeftButton, {}, a.toPoint());
    QCOMPARE(cw->selectedLink(), -1);
  }

  void coresWithNoRoleHaveAPlainBorderOfTheirOwn() {
    CoreGridWidget grid;
    grid.resize(600, 400);
    const auto snap = startSnapshot(smallScenario());
    QCOMPARE(snap->cores[static_cast<std::size_t>(snap->cards[0].aiv[0])].role, Role::Idle);
    grid.setSnapshot(snap, 0);
    const QImage img = grid.grab().toImage();
    // The first cell's left edge: x = the grid's gap, a few pixels under the heading.
    const int y = grid.fontMetrics().height() + 4 + 6;
    const QRgb edge = img.pixel(4, y);
    QCOMPARE(QColor(edge).name(), QColor(0x90, 0x90, 0x90).name());
    QVERIFY(edge != activityColor(Activity::Done).rgb());
  }

  void oneServerIsSingular() {
    Scenario sc = smallScenario();
    sc.cluster.servers = 1;
    ClusterWidget cw;
    cw.setSnapshot(startSnapshot(sc));
    QVERIFY2(cw.headerText().startsWith("1 server x "), qPrintable(cw.headerText()));
    cw.setSnapshot(startSnapshot(smallScenario()));
    QVERIFY2(cw.headerText().startsWith("2 servers x "), qPrintable(cw.headerText()));
  }

  void fusedWorkloadSweepAndAbSayWhatTheyShow() {
    MainWindow w;
    Scenario sc = smallScenario();
    sc.workload.kind = WorkloadKind::AlltoallMatmulRs;
    w.loadScenario(sc);
    // The figures a sweep of this workload reports, before any sweep ran.
    QComboBox* figure = byName<SweepView>(w, "sweep")->figureCombo();
    QVERIFY(figure->count() > 0);
    QCOMPARE(figure->currentText(), QStringLiteral("total_us"));
    QSignalSpy done(&w, &MainWindow::abDone);
    w.startAb(0);
    QVERIFY(done.wait(120000) || done.count() > 0);
    AbCompareView* ab = byName<AbCompareView>(w, "ab");
    QVERIFY(ab->hasSide(0));
    QVERIFY(ab->ringChart()->chart()->series().isEmpty());
    QCOMPARE(ab->ringChart()->chart()->title(),
             QStringLiteral("No rings in these runs: nothing to plot"));
  }
};

static Register<ViewMarksTest> reg;

}  // namespace moe::ui::test

#include "view_marks_test.moc"
