// Pacing by activity (ui/run/pacing.h): the fast-forward's math, the schedule it gives the
// default layer (computed without wall time), skip to the next interesting moment, and the
// live controller on an injected clock giving the same schedule.

#include <QAction>
#include <QDir>
#include <QFile>
#include <QMap>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "by_name.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/scenario/scenario_json.h"
#include "gui_test_registry.h"
#include "ui/models/lesson.h"
#include "ui/run/paced_schedule.h"
#include "ui/run/pacing.h"
#include "ui/run/play_clock.h"
#include "ui/run/run_controller.h"
#include "ui/run/wall_clock.h"
#include "ui/widgets/frame_log.h"
#include "ui/widgets/main_window.h"

namespace moe::ui::test {

namespace {
constexpr std::int64_t kSecond = 1'000'000'000;

PacedSchedule defaultSchedule(std::int64_t sliceNs) {
  const ResolvedScenario rs = ResolvedScenario::resolve(defaultScenario());
  auto run = makeRun(rs, defaultDesign(WorkloadKind::MoeLayer));
  return pacedSchedule(*run, kDefaultPlaySpeed, sliceNs);
}

double seconds(std::int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}
}  // namespace

class PacingTest : public QObject {
  Q_OBJECT
 private slots:
  void quietStretchDoublesEverySecond() {
    const double speed = 1e6;  // 1 us per wall second
    // The first second crosses speed * T / ln 2 * (2 - 1); the next one twice that.
    const double first = quietDistancePs(speed, 0, kSecond);
    QVERIFY(std::abs(first - 1e6 / std::log(2.0)) < 1);
    QVERIFY(std::abs(quietDistancePs(speed, kSecond, kSecond) - 2 * first) < 1);
    // Distances add up, and the wall time to cross one is its inverse.
    QVERIFY(std::abs(quietDistancePs(speed, 0, 2 * kSecond) - 3 * first) < 1);
    QVERIFY(std::abs(quietWallNs(speed, kSecond, 2 * first) - kSecond) < 1e3);
    // Past the cap the speed stays at the cap.
    const double capNs = std::log2(kMaxQuietFactor) * kSecond;
    QVERIFY(std::abs(quietDistancePs(speed, capNs + kSecond, kSecond) - speed * kMaxQuietFactor) <
            1);
  }

  void playClockChangesPaceWhereTheActivityChanges() {
    PlayClock c;
    c.setPace(true);
    // Data moving: exactly the chosen speed.
    QCOMPARE(c.aim(2e6, kSecond / 2), Time{1'000'000});
    QCOMPARE(c.wallTo(2e6, 1'000'000), kSecond / 2);
    c.changePace(1'000'000, kSecond / 2, false);
    QVERIFY(!c.dataMoving());
    QCOMPARE(c.time(), Time{1'000'000});
    QCOMPARE(c.quietWallNs(), std::int64_t{0});
    // Quiet: faster than the chosen speed from the start on, and ever faster.
    const Time a = c.aim(2e6, kSecond) - c.time();
    QVERIFY(a > 2'000'000);
    const std::int64_t w = c.wallTo(2e6, c.time() + a);
    // Rounding to whole picoseconds: at about 3 ps per wall us, a microsecond either way.
    QVERIFY(std::abs(w - kSecond) <= 1000);
  }

  void defaultLayerPlaysInOneToThreeMinutes() {
    // The Run button's schedule at its default speed, 60 frames a second.
    const PacedSchedule s = defaultSchedule(kSecond / 60);
    QVERIFY(s.finished);
    for (const StageOnScreen& st : s.stages)
      qInfo("%-20s %7.2f s  %5d frames", st.stage.c_str(), seconds(st.wallNs), st.frames);
    qInfo("total %.2f s", seconds(s.totalWallNs));
    QVERIFY(s.wallOf("dispatch-streaming") >= 20 * kSecond);
    QVERIFY(s.wallOf("combine-streaming") >= 20 * kSecond);
    QVERIFY(s.totalWallNs >= 60 * kSecond);
    QVERIFY(s.totalWallNs <= 180 * kSecond);
    // The experts stage (only GEMMs, nothing moving between cards) is fast-forwarded: it is
    // over ten times longer than dispatch in emulated time but shorter on screen.
    QVERIFY(s.wallOf("experts") > 0);
    QVERIFY(s.wallOf("experts") < s.wallOf("dispatch-streaming"));
  }

  void skipLandsOnEachChangeOfActivityInTurn() {
    // The reference: every completed instant of a fresh run where the stage changes or data
    // starts or stops moving between cards.
    struct Moment {
      Time t;
      std::string stage;
      bool moving;
    };
    std::vector<Moment> changes;
    {
      const ResolvedScenario rs = ResolvedScenario::resolve(defaultScenario());
      auto run = makeRun(rs, Design::Streaming);
      const Simulator& sim = run->emulation().sim();
      Moment shown{0, run->currentStage(), dataMoving(run->emulation())};
      while (sim.pendingEvents() > 0) {
        run->step();
        if (sim.pendingEvents() > 0 && sim.nextEventTime() == sim.now()) continue;
        const Moment m{sim.now(), run->currentStage(), dataMoving(run->emulation())};
        if (m.stage != shown.stage || m.moving != shown.moving) changes.push_back(shown = m);
      }
    }
    // The default layer has a handful of them: stage starts, and notify's RDMA rounds.
    QVERIFY(changes.size() >= 6);
    QCOMPARE(changes.back().stage, std::string("done"));

    // The controller in this thread, so every slot runs and signals at once.
    RunController c;
    std::vector<Snapshot> frames;
    QObject::connect(&c, &RunController::frameReady,
                     [&](const Frame& f) { frames.push_back(f.snapshot); });
    c.load(defaultScenario(), Design::Streaming);
    QVERIFY(!frames.empty());
    for (const Moment& m : changes) {
      frames.clear();
      c.skipToNextChange();
      QCOMPARE(frames.size(), std::size_t{1});
      QCOMPARE(frames.back().now, m.t);
      QCOMPARE(frames.back().stage, m.stage);
    }
    QVERIFY(frames.back().finished);
    frames.clear();
    c.skipToNextChange();  // at the end there is nothing to skip to
    QVERIFY(frames.empty());
  }

  void skipWhilePlayingFromTheExpertsStageGoesToTheCombine() {
    RunController c;
    auto clock = std::make_shared<ManualWallClock>();
    c.setWallClock(clock);
    c.setTickInterval(0);
    c.setSliceBudget(0);
    Snapshot last;
    int mode = -1;
    QObject::connect(&c, &RunController::frameReady, [&](const Frame& f) { last = f.snapshot; });
    QObject::connect(&c, &RunController::modeChanged, [&](int m) { mode = m; });
    c.load(defaultScenario(), Design::Streaming);
    LessonTarget experts;
    experts.kind = LessonTarget::Kind::Stage;
    experts.stage = "experts";
    experts.after = 100 * kNs;
    c.runFromStartTo(experts);
    QCOMPARE(last.stage, std::string("experts"));
    c.play();
    c.skipToNextChange();
    QCOMPARE(last.stage, std::string("combine-streaming"));
    QCOMPARE(mode, static_cast<int>(RunController::Mode::Playing));
    // Playing goes on from the skipped-to moment.
    const Time skipped = last.now;
    clock->advance(kSecond / 10);
    c.tick();
    QVERIFY(last.now > skipped);
  }

  void liveControllerPlaysTheComputedSchedule() {
    // The Run button's playback on an injected clock, 10 frames a second: frame for frame the
    // stages the schedule computed without a window shows, so the figures above are the app's.
    const std::int64_t frameNs = kSecond / 10;
    const PacedSchedule expected = defaultSchedule(frameNs);
    RunController c;
    auto clock = std::make_shared<ManualWallClock>();
    c.setWallClock(clock);
    c.setTickInterval(0);
    c.setSliceBudget(0);  // every slice runs all events up to the clock, as the recorder's
    std::vector<std::pair<std::string, int>> shown;
    bool finished = false;
    QObject::connect(&c, &RunController::frameReady, [&](const Frame& f) {
      if (f.restart) return;
      if (shown.empty() || shown.back().first != f.snapshot.stage)
        shown.emplace_back(f.snapshot.stage, 0);
      ++shown.back().second;
      finished = f.snapshot.finished;
    });
    c.load(defaultScenario(), Design::Streaming);
    c.play();
    for (int i = 0; i < 100000 && !finished; ++i) {
      clock->advance(frameNs);
      c.tick();
    }
    QVERIFY(finished);
    QCOMPARE(shown.size(), expected.stages.size());
    for (std::size_t i = 0; i < shown.size(); ++i) {
      QCOMPARE(shown[i].first, expected.stages[i].stage);
      QCOMPARE(shown[i].second, expected.stages[i].frames);
    }
  }

  void toolbarSkipAheadGoesToTheNextChange() {
    MainWindow w;
    if (!w.liveSnapshot()) {
      QSignalSpy first(&w, &MainWindow::frameShown);
      QVERIFY(first.wait(60000));
    }
    auto* skip = byName<QAction>(w, "skip-ahead");
    QCOMPARE(skip->shortcut(), QKeySequence("Ctrl+Right"));
    // From time 0: the first stage starts, then the next, each at its first instant.
    const std::pair<const char*, Time> expected[] = {{"update-expert", 0}, {"layout", 1008792}};
    for (const auto& [stage, t] : expected) {
      QSignalSpy shown(&w, &MainWindow::frameShown);
      skip->trigger();
      QVERIFY(shown.wait(60000));
      QCOMPARE(QString::fromStdString(w.liveSnapshot()->stage), QString(stage));
      QCOMPARE(w.liveSnapshot()->now, t);
    }
  }

  void frameLogWritesOneRowPerRedrawTick() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = QDir(dir.path()).filePath("frames.csv");
    {
      MainWindow w;
      QVERIFY(!w.setFrameLog(QDir(dir.path()).filePath("no/such/dir/frames.csv")));
      QVERIFY(w.setFrameLog(path));
      w.show();
      QSignalSpy shown(&w, &MainWindow::frameShown);
      QVERIFY(shown.wait(60000));  // the timer ticked and redrew: a row with its shown time
      QVERIFY(w.frameLog());
    }  // closing the window flushes the log
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList rows = QString(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.value(0),
             QString("wall_ms,gap_ms,redraw_ms,paint_ms,emulated_ps,stage,playing,rss_mib"));
    QVERIFY(rows.size() >= 2);
    for (const QString& row : rows.mid(1)) {
      const QStringList cells = row.split(',');
      QCOMPARE(cells.size(), 8);
      bool ok = false;
      QVERIFY(cells[1].toDouble(&ok) >= 0 && ok);  // gap
      QVERIFY(cells[2].toDouble(&ok) >= 0 && ok);  // redraw
      QVERIFY(cells[3].toDouble(&ok) >= 0 && ok);  // paint
      QCOMPARE(cells[6], QString("0"));            // nothing was played
    }
    QVERIFY(FrameLog::residentMiB() > 0);
  }

  void recordSpreadsItsFramesLikeTheRunButton() {
    // --record at its defaults plays as the Run button does; at one frame a second, its
    // frames per stage are the schedule's seconds per stage.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess p;
    p.start(MOE_WORKBENCH_PATH, {"--record", dir.path(), "--fps", "1"});
    QVERIFY(p.waitForFinished(600000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QFile csv(QDir(dir.path()).filePath("frames.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QMap<QString, int> frames;
    int total = 0;
    for (const QString& row : QString(csv.readAll()).split('\n', Qt::SkipEmptyParts).mid(1)) {
      ++frames[row.split(',').value(2)];
      ++total;
    }
    qInfo("record: %d frames, dispatch %d, experts %d, combine %d", total,
          frames.value("dispatch-streaming"), frames.value("experts"),
          frames.value("combine-streaming"));
    QVERIFY(frames.value("dispatch-streaming") >= 20);
    QVERIFY(frames.value("combine-streaming") >= 20);
    QVERIFY(frames.value("experts") < frames.value("dispatch-streaming"));
    QVERIFY(total >= 60 && total <= 180);
    const PacedSchedule s = defaultSchedule(kSecond);
    for (const char* stage : {"dispatch-streaming", "experts", "combine-streaming"})
      QVERIFY2(std::abs(frames.value(stage) - s.framesOf(stage)) <= 1, stage);
  }
};

static Register<PacingTest> reg;

}  // namespace moe::ui::test

#include "pacing_test.moc"
