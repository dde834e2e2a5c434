// The live run through the real window and worker thread: stepping, reset, the scrubber,
// the editor blocking Run, and the GUI thread staying responsive during a full run.

#include <QAction>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include "gui_test_registry.h"
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

bool waitFirstFrame(MainWindow& w) {
  if (w.liveSnapshot()) return true;
  QSignalSpy spy(&w, &MainWindow::frameShown);
  return spy.wait(60000);
}
}  // namespace

class RunControlTest : public QObject {
  Q_OBJECT
 private slots:
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
    w.cardView()->resize(1000, 700);

    QSignalSpy scrubbed(&w, &MainWindow::scrubShown);
    w.controller()->requestScrub(0);
    QVERIFY(scrubbed.wait(60000));
    QCOMPARE(w.shownSnapshot()->now, Time{0});
    const QImage atStart = w.cardView()->grab().toImage();

    w.controller()->requestScrub(busy);
    QVERIFY(scrubbed.wait(60000));
    QVERIFY(w.shownSnapshot()->now <= busy);
    QVERIFY(w.shownSnapshot()->now > 0);
    QVERIFY(w.cardView()->grab().toImage() != atStart);
  }

  void editorFlagsInvalidFieldAndBlocksRun() {
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    QVERIFY(w.editor()->isValid());
    QVERIFY(w.runAction()->isEnabled());
    auto* hidden = qobject_cast<QLineEdit*>(w.editor()->fieldEditor("model.hidden"));
    QVERIFY(hidden);
    hidden->setText("-3");  // as if typed: textChanged validates immediately
    QVERIFY(!w.editor()->isValid());
    QVERIFY(!w.editor()->fieldError("model.hidden")->isHidden());
    QVERIFY(!w.editor()->fieldError("model.hidden")->text().isEmpty());
    QVERIFY(!w.runAction()->isEnabled());
    hidden->setText("abc");
    QVERIFY(!w.editor()->fieldError("model.hidden")->isHidden());
    QVERIFY(!w.runAction()->isEnabled());
    hidden->setText("7168");
    QVERIFY(w.editor()->isValid());
    QVERIFY(w.editor()->fieldError("model.hidden")->isHidden());
    QVERIFY(w.runAction()->isEnabled());
  }

  void guiThreadKeepsTickingDuringAFullRun() {
    MainWindow w;
    w.show();
    QVERIFY(waitFirstFrame(w));
    QElapsedTimer clock;
    qint64 last = -1, worstGap = 0;
    QTimer ticker;
    ticker.setInterval(5);
    connect(&ticker, &QTimer::timeout, [&] {
      const qint64 now = clock.elapsed();
      if (last >= 0) worstGap = std::max(worstGap, now - last);
      last = now;
    });
    QSignalSpy verified(w.controller(), &RunController::verificationReady);
    clock.start();
    ticker.start();
    QMetaObject::invokeMethod(w.controller(), &RunController::runToEnd);
    // The first verificationReady came from load (not done); wait for the final one.
    QTRY_VERIFY_WITH_TIMEOUT(w.verification().done, 180000);
    ticker.stop();
    QVERIFY2(worstGap <= 100,
             qPrintable(QString("worst gap between GUI ticks: %1 ms").arg(worstGap)));
    QVERIFY2(w.verification().ok, qPrintable(w.verification().details));
    QVERIFY(w.liveSnapshot()->finished);
  }
};

static Register<RunControlTest> reg;

}  // namespace moe::ui::test

#include "run_control_test.moc"
