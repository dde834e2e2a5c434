// The fused AlltoAll-Matmul-ReduceScatter workload in the workbench: loading it, its designs,
// stepping its stages, the card view's roles and workspace stages, the timeline's overlap
// and verification at the end, through the real window and worker thread.

#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "by_name.h"
#include "core/scenario/scenario_json.h"
#include "gui_test_registry.h"
#include "signal_wait.h"
#include "ui/run/run_controller.h"
#include "ui/style/palette.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/core_grid_widget.h"
#include "ui/widgets/experts_view.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/ring_strip_widget.h"
#include "ui/widgets/scenario_editor.h"
#include "ui/widgets/timeline_widget.h"
#include "ui/widgets/workspace_stages_widget.h"

namespace moe::ui::test {

namespace {
Scenario a2aScenario() {
  Scenario sc = defaultScenario();
  sc.workload.kind = WorkloadKind::AlltoallMatmulRs;
  return sc;
}

// Waits until the window shows a live snapshot of `design` at time 0 (a fresh load).
bool waitForFreshRun(MainWindow& w, const std::string& design) {
  return QTest::qWaitFor(
      [&] {
        return w.liveSnapshot() && w.liveSnapshot()->design == design &&
               w.liveSnapshot()->events == 0;
      },
      60000);
}

// Runs to the end and waits for the final verification (the one from load is not done).
bool runToEndVerified(MainWindow& w) {
  QMetaObject::invokeMethod(w.controller(), &RunController::runToEnd);
  return QTest::qWaitFor([&] { return w.verification().done; }, 120000);
}

// Pixels of colour `c` as 8-bit RGB (a shade from QColor::darker keeps 16-bit channels that
// an image pixel never equals as a QColor).
int countColour(const QImage& img, const QColor& c) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) n += img.pixel(x, y) == c.rgba();
  return n;
}
// A workspace-stages strip of `count` free, never-used slots.
StagesSnap freeStrip(const std::string& name, const std::string& group, int count) {
  StagesSnap st;
  st.name = name;
  st.group = group;
  st.states.assign(count, SlotState::Free);
  st.items.assign(count, -1);
  st.uses.assign(count, 0);
  return st;
}
}  // namespace

class A2aWorkloadTest : public QObject {
  Q_OBJECT
 private slots:
  void loadingTheWorkloadOffersItsDesignsAndWorkspaceStages() {
    MainWindow w;
    w.loadScenario(a2aScenario());
    QVERIFY(waitForFreshRun(w, "pipelined"));
    const auto s = w.liveSnapshot();
    QCOMPARE(static_cast<int>(s->cards.size()), 8);  // workload.ranks, one server
    QCOMPARE(s->stage, std::string("not started"));
    QComboBox* design = byName<QComboBox>(w, "design");
    QCOMPARE(design->count(), 2);
    QCOMPARE(design->itemText(0), QString("pipelined"));
    QCOMPARE(design->itemText(1), QString("sequential"));
    // Every card has its STAGES a2a input slots, an RS buffer and one partial strip per AIC.
    for (int card = 0; card < 8; ++card) {
      int a2a = 0, partial = 0, rs = 0;
      for (const StagesSnap& st : s->workspace) {
        if (st.card != card) continue;
        if (st.group == "a2a input") a2a += st.slotCount();
        partial += st.group == "partial sums";
        rs += st.group == "reduce-scatter buffer";
        QCOMPARE(st.occupied, 0);
      }
      QCOMPARE(a2a, s->cards.empty() ? 0 : 8);  // workload.stages
      QCOMPARE(partial, 20);
      QCOMPARE(rs, 1);
    }
    ExpertsView* experts = byName<ExpertsView>(w, "experts");
    QVERIFY(experts->notApplicableText().contains("Not applicable"));
    // By role: shows the overlap.
    QCOMPARE(byName<QComboBox>(w, "timelineLanes")->currentIndex(), 1);
    // Back to the MoE layer: its designs, experts and lanes return.
    w.loadScenario(defaultScenario());
    QVERIFY(waitForFreshRun(w, "streaming"));
    QCOMPARE(design->itemText(0), QString("streaming"));
    QVERIFY(experts->notApplicableText().isEmpty());
    QVERIFY(w.liveSnapshot()->workspace.empty());
  }

  void editorSwitchesTheWorkloadAndReloadsTheRun() {
    MainWindow w;
    QVERIFY(waitForFreshRun(w, "streaming"));
    auto* kind = qobject_cast<QComboBox*>(
        byName<ScenarioEditor>(w, "scenario")->fieldEditor("workload.kind"));
    QVERIFY2(kind, "workload.kind is a combo box");
    QCOMPARE(kind->count(), 2);
    kind->setCurrentText("alltoall-matmul-rs");
    QVERIFY(waitForFreshRun(w, "pipelined"));
    QCOMPARE(w.liveSnapshot()->cards.size(), std::size_t{8});
    kind->setCurrentText("moe-layer");
    QVERIFY(waitForFreshRun(w, "streaming"));
  }

  void sequentialKernelStepsThroughItsThreeStages() {
    MainWindow w;
    w.loadScenario(a2aScenario());
    QVERIFY(waitForFreshRun(w, "pipelined"));
    byName<QComboBox>(w, "design")->setCurrentIndex(1);
    QVERIFY(waitForFreshRun(w, "sequential"));
    std::vector<std::string> seen;
    for (int i = 0; i < 6 && (seen.empty() || seen.back() != "done"); ++i) {
      const std::string before = w.liveSnapshot()->stage;
      QMetaObject::invokeMethod(w.controller(), &RunController::stepStage);
      QTRY_VERIFY_WITH_TIMEOUT(w.liveSnapshot()->stage != before, 60000);
      seen.push_back(w.liveSnapshot()->stage);
    }
    QCOMPARE(seen, (std::vector<std::string>{"all-to-all", "matmul", "reduce-scatter", "done"}));
    QVERIFY(w.liveSnapshot()->finished);
  }

  void cardViewShowsGemmA2aAndReduceScatterCoresAtWork() {
    MainWindow w;
    w.resize(1400, 900);
    w.loadScenario(a2aScenario());
    QVERIFY(waitForFreshRun(w, "pipelined"));
    QSignalSpy busy(w.controller(), &RunController::busyReached);
    QMetaObject::invokeMethod(w.controller(), &RunController::runUntilBusy);
    QVERIFY(waitForFirst(busy, 60000));
    QTRY_VERIFY_WITH_TIMEOUT(w.liveSnapshot()->now > 0, 10000);
    const auto s = w.liveSnapshot();
    int gemmWorking = 0;
    for (const CoreSnap& c : s->cores) {
      if (c.card != 0) continue;
      if (c.cube)
        QCOMPARE(c.role, Role::Gemm);
      else
        QVERIFY(c.role == Role::A2A || c.role == Role::ReduceScatter);
      gemmWorking += c.cube && (c.activity == Activity::Cube || c.activity == Activity::Copy);
    }
    QVERIFY(gemmWorking > 0);
    w.show();
    CardView* cardView = byName<CardView>(w, "card");
    byName<QTabWidget>(w, "views")->setCurrentWidget(cardView);
    cardView->showCard(0);
    QTest::qWait(100);  // layouts settle once shown
    const QImage grid = cardView->grid()->grab().toImage();
    QVERIFY(countColour(grid, roleColor(Role::Gemm)) > 500);
    QVERIFY(countColour(grid, roleColor(Role::A2A)) > 100);
    QVERIFY(countColour(grid, roleColor(Role::ReduceScatter)) > 100);
    QCOMPARE(countColour(grid, roleColor(Role::Sender)), 0);  // the MoE roles are not in play
    QVERIFY(cardView->stages()->isVisibleTo(cardView));
    QVERIFY(!cardView->rings()->isVisibleTo(cardView));
    QVERIFY(cardView->stages()->rowCount() == 22);  // a2a input, RS buffer, 20 partial strips

    // The scrubber re-runs the same kernel to an earlier time: fewer partial tiles delivered.
    auto delivered = [](const Snapshot& snap) {
      std::int64_t n = 0;
      for (const StagesSnap& st : snap.workspace)
        n += st.group == "reduce-scatter buffer" ? st.stats.fills : 0;
      return n;
    };
    QSignalSpy scrubbed(&w, &MainWindow::scrubShown);
    w.controller()->requestScrub(s->now / 2);
    QVERIFY(scrubbed.wait(60000));
    QCOMPARE(w.shownSnapshot()->design, std::string("pipelined"));
    QVERIFY(w.shownSnapshot()->now <= s->now / 2);
    QVERIFY(delivered(*w.shownSnapshot()) < delivered(*s));
  }

  void workspaceStageImageChangesWithOccupancy() {
    auto snap = std::make_shared<Snapshot>();
    snap->cards.push_back(CardSnap{0, 0, 0, {}, {}});
    StagesSnap st = freeStrip("card 0 a2a input stages", "a2a input", 4);
    st.slotBytes = 65536;
    snap->workspace.push_back(st);
    WorkspaceStagesWidget w;
    w.resize(800, 120);
    w.setSnapshot(snap, 0);
    const QImage empty = w.grab().toImage();

    auto filling = std::make_shared<Snapshot>(*snap);
    filling->workspace[0].states[0] = SlotState::Filling;
    filling->workspace[0].items[0] = 0;
    filling->workspace[0].occupied = 1;
    w.setSnapshot(filling, 0);
    const QImage one = w.grab().toImage();
    QVERIFY(one != empty);

    auto full = std::make_shared<Snapshot>(*filling);
    full->workspace[0].states[0] = SlotState::Full;
    w.setSnapshot(full, 0);
    const QImage flagged = w.grab().toImage();
    QVERIFY(flagged != one);
    QVERIFY(countColour(flagged, slotColor(SlotState::Full, false)) > 50);

    auto reading = std::make_shared<Snapshot>(*full);
    reading->workspace[0].states[1] = SlotState::Reading;
    reading->workspace[0].items[1] = 1;
    reading->workspace[0].occupied = 2;
    w.setSnapshot(reading, 0);
    QVERIFY(w.grab().toImage() != flagged);
    // Another card's strips are not this card's.
    w.setSnapshot(reading, 1);
    QCOMPARE(w.rowCount(), 0);
  }

  // Presenter mode doubles the font: the strips' lines and the wrapped caption grow with it
  // instead of painting over each other at fixed pixel heights.
  void workspaceStagesGrowWithTheFont() {
    auto snap = std::make_shared<Snapshot>();
    snap->cards.push_back(CardSnap{0, 0, 0, {}, {}});
    for (int a = 0; a < 6; ++a)
      snap->workspace.push_back(
          freeStrip("card 0 aic " + std::to_string(a) + " partial sums", "partial sums", 5));
    WorkspaceStagesWidget w;
    w.resize(700, 200);
    w.setSnapshot(snap, 0);
    const int normal = w.sizeHint().height();
    QFont big = w.font();
    big.setPointSizeF(big.pointSizeF() * 2);
    w.setFont(big);
    QCOMPARE(w.rowCount(), 6);
    const int line = QFontMetrics(big).height();
    QVERIFY2(w.sizeHint().height() >= normal + 6 * line / 2,
             qPrintable(QString("%1 px at the normal font, %2 px at twice it (a line is %3 px)")
                            .arg(normal)
                            .arg(w.sizeHint().height())
                            .arg(line)));
    QVERIFY2(w.sizeHint().height() >= 8 * line, "six strips under a legend and a caption");
  }

  void pipelinedRunVerifiesAndHidesCommunicationTheBaselineDoesNot() {
    MainWindow w;
    w.loadScenario(a2aScenario());
    QVERIFY(waitForFreshRun(w, "pipelined"));
    QVERIFY(runToEndVerified(w));
    QVERIFY2(w.verification().ok, qPrintable(w.verification().details));
    QVERIFY(w.verification().summary.contains("2/2"));
    QVERIFY(w.verification().details.contains("pipelined == reference GEMM"));
    QTRY_VERIFY_WITH_TIMEOUT(w.liveSnapshot()->finished, 10000);
    TimelineWidget* t = byName<TimelineWidget>(w, "timelineGantt");
    QVERIFY(t->hasOverlapSummary());
    const double hidden = static_cast<double>(t->hiddenCommunicationTime()) /
                          static_cast<double>(t->communicationTime());
    QVERIFY2(hidden > 0.5, qPrintable(QString("pipelined hides %1").arg(hidden)));
    QCOMPARE(t->laneCount(),
             3 + 8 * 3);  // summary lanes, then gemm / a2a / reduce-scatter per card

    byName<QComboBox>(w, "design")->setCurrentIndex(1);
    QVERIFY(waitForFreshRun(w, "sequential"));
    QVERIFY(runToEndVerified(w));
    QVERIFY2(w.verification().ok, qPrintable(w.verification().details));
    QTRY_VERIFY_WITH_TIMEOUT(w.liveSnapshot()->finished, 10000);
    const double seqHidden = static_cast<double>(t->hiddenCommunicationTime()) /
                             static_cast<double>(t->communicationTime());
    QVERIFY2(seqHidden < 0.05, qPrintable(QString("sequential hides %1").arg(seqHidden)));
  }

  void screenshotModeShowsTheWorkloadMidRun() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess p;
    p.start(MOE_WORKBENCH_PATH, {"--screenshot", dir.path(), "--workload", "alltoall-matmul-rs"});
    QVERIFY(p.waitForFinished(240000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QSet<QByteArray> hashes;
    for (const char* name : {"card", "timeline", "compare"}) {
      const QImage img(QDir(dir.path()).filePath(QString(name) + ".png"));
      QVERIFY(img.width() >= 800 && img.height() >= 600);
      hashes.insert(
          QCryptographicHash::hash(QByteArray(reinterpret_cast<const char*>(img.constBits()),
                                              static_cast<int>(img.sizeInBytes())),
                                   QCryptographicHash::Sha256));
      QVERIFY2(countColour(img, roleColor(Role::Gemm).darker(115)) +
                       countColour(img, roleColor(Role::Gemm)) >
                   200,
               name);
    }
    QCOMPARE(hashes.size(), 3);
    QProcess bad;
    bad.start(MOE_WORKBENCH_PATH, {"--screenshot", dir.path(), "--workload", "nonsense"});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
  }
};

static Register<A2aWorkloadTest> reg;

}  // namespace moe::ui::test

#include "a2a_workload_test.moc"
