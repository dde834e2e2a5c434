// The live run through the real window and worker thread: stepping, reset, the scrubber,
// the editor blocking Run, and the GUI thread answering while the worker is busy.

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <atomic>

#include "by_name.h"
#include "gui_test_registry.h"
#include "small_scenario.h"
#include "ui/models/lesson.h"
#include "ui/run/run_controller.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/scenario_editor.h"

namespace moe::ui::test {

namespace {
// Invokes a controller slot in the worker and waits until the window has shown the frame
// it produced.
template <typename Slot>
bool doAndWaitFrame(MainWindow& w, Slot slot, int timeoutMs = 60000) {
  QSignalSpy spy(&w, &MainWindow::frameShown);
  QMetaObject::invokeMethod(w.controller(), slot);
  return spy.wait(timeoutMs);
}

LessonTarget stageTarget(const std::string& stage, Time after = 0) {
  LessonTarget t;
  t.kind = LessonTarget::Kind::Stage;
  t.stage = stage;
  t.after = after;
  return t;
}

// What a frame shows of a run's state: where it is, how many events it has taken, and
// every core's and ring's state.
struct Shown {
  bool restart = false;
  Snapshot s;
};

void expectSameState(const Snapshot& a, const Snapshot& b) {
  QCOMPARE(a.now, b.now);
  QCOMPARE(a.events, b.events);
  QCOMPARE(a.stage, b.stage);
  QCOMPARE(a.finished, b.finished);
  QCOMPARE(a.cores.size(), b.cores.size());
  for (std::size_t i = 0; i < a.cores.size(); ++i) {
    QCOMPARE(a.cores[i].activity, b.cores[i].activity);
    QCOMPARE(a.cores[i].role, b.cores[i].role);
    QCOMPARE(a.cores[i].timeIn, b.cores[i].timeIn);
  }
  QCOMPARE(a.rings.size(), b.rings.size());
  for (std::size_t i = 0; i < a.rings.size(); ++i) {
    QCOMPARE(a.rings[i].head, b.rings[i].head);
    QCOMPARE(a.rings[i].tail, b.rings[i].tail);
    QCOMPARE(a.rings[i].recordsInFlight, b.rings[i].recordsInFlight);
  }
}

bool waitFirstFrame(MainWindow& w) {
  if (w.liveSnapshot()) return true;
  QSignalSpy spy(&w, &MainWindow::frameShown);
  return spy.wait(60000);
}
}  // namespace

class RunControlTest : public QObject {
  Q_OBJECT
 private slots:
  void aLessonStepOfTheSameLoadGoesOnToWhatAFreshRunShows() {
    // Next in a lesson: a target still ahead of the live run is reached by running on from
    // where the run is, and shows exactly the state a run from time 0 shows there. A target
    // behind it starts again. Controllers in this thread, so every slot runs at once.
    const Scenario sc = smallScenario();
    RunController live;
    Shown shown;
    int verdicts = 0;
    QObject::connect(&live, &RunController::frameReady, [&](const Frame& f) {
      shown = {f.restart, f.snapshot};
    });
    QObject::connect(&live, &RunController::verificationReady,
                     [&](const Verification& v) { verdicts += v.done && v.ok ? 1 : 0; });
    live.load(sc, Design::Streaming);
    const auto fresh = [&sc](const LessonTarget& t) {
      RunController c;
      Snapshot s;
      QObject::connect(&c, &RunController::frameReady, [&](const Frame& f) { s = f.snapshot; });
      c.load(sc, Design::Streaming);
      c.runFromStartTo(t);
      return s;
    };
    LessonTarget at;
    at.kind = LessonTarget::Kind::Time;
    LessonTarget end;
    end.kind = LessonTarget::Kind::End;
    const std::vector<std::pair<LessonTarget, bool>> steps = {
        {stageTarget("dispatch-streaming"), false},           // ahead of time 0
        {stageTarget("dispatch-streaming", 2 * kUs), false},  // later in the stage
        {stageTarget("dispatch-streaming", 2 * kUs), false},  // there already
        {stageTarget("dispatch-streaming", 1 * kUs), true},   // passed
        {stageTarget("dispatch-streaming", 3 * kUs), false},
        {stageTarget("dispatch-streaming"), true},  // its first busy moment: known from 0 only
        {stageTarget("combine-streaming"), false},
        {at, false},  // the time is set below, inside the combine
        {end, false},
        {end, false},                               // already there: nothing more to run
        {stageTarget("dispatch-streaming"), true},  // behind: from time 0 again
    };
    for (auto [target, restarts] : steps) {
      if (target.kind == LessonTarget::Kind::Time) target.time = shown.s.now + 3 * kUs;
      live.continueTo(target);
      QCOMPARE(shown.restart, restarts);
      expectSameState(shown.s, fresh(target));
    }
    QCOMPARE(verdicts, 1);  // the run reached its end once, and was checked once
  }

  void steppingAdvancesTimeAndResetRestoresIt() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    QCOMPARE(w.liveSnapshot()->now, Time{0});
    QCOMPARE(w.liveSnapshot()->events, std::uint64_t{0});
    QVERIFY(doAndWaitFrame(w, &RunController::stepEvent));
    QCOMPARE(w.liveSnapshot()->events, std::uint64_t{1});
    // The first events all happen at time 0 (every core's program starts); many events move
    // the clock. stepEvents runs them in one slot call and sends one frame, so no timer-driven
    // slice can land between the frame awaited here and the counts read below.
    {
      QSignalSpy spy(&w, &MainWindow::frameShown);
      RunController* c = w.controller();
      QMetaObject::invokeMethod(c, [c] { c->stepEvents(20000); });
      QVERIFY(spy.wait(60000));
    }
    QCOMPARE(w.liveSnapshot()->events, std::uint64_t{20001});
    QVERIFY(w.liveSnapshot()->now > 0);
    const Time afterMany = w.liveSnapshot()->now;
    const std::uint64_t events = w.liveSnapshot()->events;
    QVERIFY(doAndWaitFrame(w, &RunController::stepEvent));
    QCOMPARE(w.liveSnapshot()->events, events + 1);
    QVERIFY(w.liveSnapshot()->now >= afterMany);
    QVERIFY(doAndWaitFrame(w, &RunController::reset));
    QCOMPARE(w.liveSnapshot()->now, Time{0});
    QCOMPARE(w.liveSnapshot()->events, std::uint64_t{0});
    QCOMPARE(QString::fromStdString(w.liveSnapshot()->stage), QString("not started"));
  }

  void scrubberChangesWhatTheCardViewShows() {
    MainWindow w;
    w.resize(1200, 800);
    QVERIFY(waitFirstFrame(w));
    QVERIFY(doAndWaitFrame(w, &RunController::runUntilBusy, 120000));
    const Time busy = w.liveSnapshot()->now;
    QVERIFY(busy > 0);
    CardView* card = byName<CardView>(w, "card");
    card->resize(1000, 700);

    QSignalSpy scrubbed(&w, &MainWindow::scrubShown);
    w.controller()->requestScrub(0);
    QVERIFY(scrubbed.wait(60000));
    QCOMPARE(w.shownSnapshot()->now, Time{0});
    const QImage atStart = card->grab().toImage();

    w.controller()->requestScrub(busy);
    QVERIFY(scrubbed.wait(60000));
    QVERIFY(w.shownSnapshot()->now <= busy);
    QVERIFY(w.shownSnapshot()->now > 0);
    QVERIFY(card->grab().toImage() != atStart);
  }

  void editorFlagsInvalidFieldAndBlocksRun() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    ScenarioEditor* editor = byName<ScenarioEditor>(w, "scenario");
    QVERIFY(editor->isValid());
    QAction* run = byName<QAction>(w, "run");
    QVERIFY(run->isEnabled());
    auto* hidden = qobject_cast<QLineEdit*>(editor->fieldEditor("model.hidden"));
    QVERIFY(hidden);
    hidden->setText("-3");  // as if typed: textChanged validates immediately
    QVERIFY(!editor->isValid());
    QVERIFY(!editor->fieldError("model.hidden")->isHidden());
    QVERIFY(!editor->fieldError("model.hidden")->text().isEmpty());
    QVERIFY(!run->isEnabled());
    hidden->setText("abc");
    QVERIFY(!editor->fieldError("model.hidden")->isHidden());
    QVERIFY(!run->isEnabled());
    hidden->setText("7168");
    QVERIFY(editor->isValid());
    QVERIFY(editor->fieldError("model.hidden")->isHidden());
    QVERIFY(run->isEnabled());
  }

  void guiAnswersWhileTheWorkerIsBusy() {
    // Deterministic, no wall-clock bound: the worker is held inside a slot until the test
    // lets it go. Everything a user does meanwhile (switch every tab, repaint, press Step and
    // Run to end) must complete on the GUI thread alone; a GUI that waited for the worker
    // would not get past it until the hold ends (then `released` would already be true).
    MainWindow w;
    w.show();
    QVERIFY(waitFirstFrame(w));
    QVERIFY(w.controller()->thread() != w.thread());
    QSemaphore entered, hold;
    std::atomic<bool> released{false};
    QMetaObject::invokeMethod(w.controller(), [&entered, &hold, &released] {
      entered.release();
      (void)hold.tryAcquire(1, 120000);  // a safety net only: the test releases it below
      released = true;
    });
    QVERIFY(entered.tryAcquire(1, 60000));
    QTabWidget* tabs = byName<QTabWidget>(w, "views");
    for (int i = 0; i < tabs->count(); ++i) {
      tabs->setCurrentIndex(i);
      QCoreApplication::processEvents();
      QVERIFY(!w.grab().isNull());
    }
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text().remove('&') == "Step" || a->text().remove('&') == "Run to end") a->trigger();
    QCoreApplication::processEvents();
    QVERIFY2(!released, "the GUI thread waited for the worker");
    hold.release();
    // The queued Run to end then runs the whole layer, and its verdict arrives.
    QTRY_VERIFY_WITH_TIMEOUT(w.verification().done, 180000);
    QVERIFY2(w.verification().ok, qPrintable(w.verification().details));
    QVERIFY(w.liveSnapshot()->finished);
  }
};

static Register<RunControlTest> reg;

}  // namespace moe::ui::test

#include "run_control_test.moc"
