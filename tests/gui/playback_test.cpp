// Playback with its own play clock, driven by an injected wall clock so the test is
// deterministic: at 1 us/s, 100 us/s and 10 ms/s the default run plays to its end, the
// displayed time never decreases, and the experts stage (long GEMMs with no events between
// them, where the old "aim at now() + speed * dt" playback stalled forever) is crossed.

#include <QEventLoop>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include "by_name.h"
#include "gui_test_registry.h"
#include "ui/run/run_controller.h"
#include "ui/style/palette.h"
#include "ui/widgets/main_window.h"

namespace moe::ui::test {

namespace {

// What one played frame showed.
struct Shown {
  Time t = 0;
  std::uint64_t events = 0;
  std::string stage;
  bool finished = false;
};

bool waitFirstFrame(MainWindow& w) {
  if (w.liveSnapshot()) return true;
  QSignalSpy spy(&w, &MainWindow::frameShown);
  return spy.wait(60000);
}

// Plays the loaded run at `speed` (ps per wall second), `frameNs` of simulated wall time
// per worker slice, until it finishes or `maxFrames` slices ran. Returns every frame shown.
std::vector<Shown> play(MainWindow& w, double speed, std::int64_t frameNs, int maxFrames) {
  RunController* c = w.controller();
  auto clock = std::make_shared<ManualWallClock>();
  QMetaObject::invokeMethod(c, [c, clock, speed] {
    c->setWallClock(clock);
    c->setTickInterval(0);  // no timer: this test calls tick() after moving the clock
    c->setSpeed(speed);
    c->play();
  });
  std::vector<Shown> shown;
  QObject context;
  QEventLoop loop;
  QObject::connect(c, &RunController::frameReady, &context, [&](const Frame& f) {
    shown.push_back({f.snapshot.now, f.snapshot.events, f.snapshot.stage, f.snapshot.finished});
    loop.quit();
  });
  for (int i = 0; i < maxFrames && (shown.empty() || !shown.back().finished); ++i) {
    clock->advance(frameNs);
    QMetaObject::invokeMethod(c, &RunController::tick);
    QTimer::singleShot(300000, &loop, &QEventLoop::quit);  // a hang fails below, not forever
    const std::size_t before = shown.size();
    loop.exec();
    if (shown.size() == before) break;
  }
  return shown;
}

}  // namespace

class PlaybackTest : public QObject {
  Q_OBJECT
 private slots:
  void playsThroughToTheEnd_data() {
    QTest::addColumn<double>("speed");
    QTest::addColumn<qint64>("frameNs");
    // 1 us/s at one frame per wall second (a 16 ms frame would need 300 000 slices); the
    // others at the workbench's 16 ms slices. Every speed crosses gaps longer than one frame.
    QTest::newRow("1 us/s") << 1e6 << qint64{1000000000};
    QTest::newRow("100 us/s") << 1e8 << qint64{16000000};
    QTest::newRow("10 ms/s") << 1e10 << qint64{16000000};
  }

  void playsThroughToTheEnd() {
    QFETCH(double, speed);
    QFETCH(qint64, frameNs);
    MainWindow w;
    QVERIFY(waitFirstFrame(w));
    // The end of the default run, from a run to the end on the same window.
    QSignalSpy done(w.controller(), &RunController::verificationReady);
    QMetaObject::invokeMethod(w.controller(), &RunController::runToEnd);
    QTRY_VERIFY_WITH_TIMEOUT(w.verification().done, 180000);
    QTRY_VERIFY_WITH_TIMEOUT(w.liveSnapshot()->finished, 10000);
    const Time end = w.liveSnapshot()->now;
    QVERIFY(end > 0);
    QSignalSpy reset(&w, &MainWindow::frameShown);
    QMetaObject::invokeMethod(w.controller(), &RunController::reset);
    QTRY_VERIFY_WITH_TIMEOUT(w.liveSnapshot()->now == 0 && !w.liveSnapshot()->finished, 10000);

    // At 10 ms/s one frame asks for more events than a slice's 10 ms budget runs: the play
    // clock then keeps pace with the emulation (never ahead of it), so allow the frames a
    // slow machine needs. A stall would show as frames that move nothing, checked below.
    const double perFrame = speed * static_cast<double>(frameNs) / 1e9;
    const int expected = static_cast<int>(static_cast<double>(end) / perFrame) + 1;
    const std::vector<Shown> shown = play(w, speed, frameNs, 2 * expected + 20000);
    QVERIFY(!shown.empty());
    QVERIFY2(shown.back().finished,
             qPrintable(QString("stalled at %1 ps in stage %2 after %3 frames")
                            .arg(shown.back().t)
                            .arg(QString::fromStdString(shown.back().stage))
                            .arg(shown.size())));
    QCOMPARE(shown.back().t, end);
    bool inExperts = false, crossedExperts = false, movedWithoutEvents = false;
    int still = 0;  // consecutive frames in which neither time nor events moved
    for (std::size_t i = 1; i < shown.size(); ++i) {
      still =
          shown[i].t == shown[i - 1].t && shown[i].events == shown[i - 1].events ? still + 1 : 0;
      QVERIFY2(still < 3, qPrintable(QString("no progress at %1 ps").arg(shown[i].t)));
      QVERIFY2(shown[i].t >= shown[i - 1].t,
               qPrintable(QString("displayed time went back from %1 to %2 ps")
                              .arg(shown[i - 1].t)
                              .arg(shown[i].t)));
      if (shown[i].stage == "experts") inExperts = true;
      if (inExperts && shown[i].stage != "experts") crossedExperts = true;
      // The play clock moved on through a stretch with no events: the gap is shown.
      if (shown[i].stage == "experts" && shown[i].events == shown[i - 1].events &&
          shown[i].t > shown[i - 1].t)
        movedWithoutEvents = true;
    }
    QVERIFY(crossedExperts);
    // At 10 ms/s one frame spans more than any gap; the slower speeds must show one.
    if (speed < 1e9) QVERIFY(movedWithoutEvents);
    // The toolbar shows the played time, which is the end.
    QTRY_VERIFY_WITH_TIMEOUT(byName<QLabel>(w, "time")->text().contains(timeText(end)), 10000);
  }
};

static Register<PlaybackTest> reg;

}  // namespace moe::ui::test

#include "playback_test.moc"
