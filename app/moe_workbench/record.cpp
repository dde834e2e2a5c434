#include "record.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "ui/models/lesson.h"
#include "ui/run/run_controller.h"
#include "ui/run/wall_clock.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/timeline_widget.h"

namespace moe::ui {

namespace {
// Waits for the window to show a frame (or the timeout); false on timeout.
bool waitShown(MainWindow& w, int timeoutMs) {
  QEventLoop loop;
  bool shown = false;
  auto c = QObject::connect(&w, &MainWindow::frameShown, &loop, [&] {
    shown = true;
    loop.quit();
  });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
  QObject::disconnect(c);
  return shown;
}

// ffmpeg turns the numbered frames into an animated GIF (plays anywhere, also in a slide
// deck's image box) and an H.264 MP4 (small, sharp). Absent ffmpeg, the PNGs remain.
void encode(const RecordOptions& o) {
  const QString ffmpeg = QStandardPaths::findExecutable("ffmpeg");
  if (ffmpeg.isEmpty()) {
    std::printf("ffmpeg not found: frames only (install the Debian package ffmpeg for GIF/MP4)\n");
    return;
  }
  const QString in = QDir(o.dir).filePath("frame_%05d.png");
  const QString fps = QString::number(o.fps);
  const QList<QStringList> jobs = {
      {"-y", "-loglevel", "error", "-framerate", fps, "-i", in, "-vf",
       "scale=960:-1:flags=lanczos,split[a][b];[a]palettegen[p];[b][p]paletteuse", "-loop", "0",
       QDir(o.dir).filePath("record.gif")},
      {"-y", "-loglevel", "error", "-framerate", fps, "-i", in, "-vf",
       "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
       QDir(o.dir).filePath("record.mp4")}};
  for (const QStringList& args : jobs) {
    QProcess p;
    p.start(ffmpeg, args);
    const bool ok =
        p.waitForFinished(600000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    std::printf("%s %s\n", ok ? "wrote" : "ffmpeg failed on", qPrintable(args.last()));
    if (!ok) std::fprintf(stderr, "%s", p.readAllStandardError().constData());
  }
}
}  // namespace

int recordPlayback(MainWindow& w, const RecordOptions& o) {
  if (!QDir().mkpath(o.dir)) {
    std::fprintf(stderr, "cannot create %s\n", qPrintable(o.dir));
    return 1;
  }
  QFile csv(QDir(o.dir).filePath("frames.csv"));
  if (!csv.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    std::fprintf(stderr, "cannot write %s\n", qPrintable(csv.fileName()));
    return 1;
  }
  QTextStream out(&csv);
  out << "frame,time_ps,stage,view\n";
  w.resize(1400, 900);
  w.show();
  w.showView(o.view);
  if (!waitShown(w, 60000) && !w.liveSnapshot()) {
    std::fprintf(stderr, "the scenario did not load\n");
    return 1;
  }
  // The same playback as the Run button, on a clock that moves one video frame per slice.
  w.setPlaybackSpeed(o.psPerWallSecond);  // the speed box shows the recording's speed
  RunController* c = w.controller();
  auto clock = std::make_shared<ManualWallClock>();
  const double speed = o.psPerWallSecond;
  QMetaObject::invokeMethod(c, [c, clock, speed] {
    c->setWallClock(clock);
    c->setTickInterval(0);
    c->setSliceBudget(0);  // each frame is exactly one frame's worth of emulated time
    c->setSpeed(speed);
    c->reset();
    c->play();
  });
  const std::int64_t frameNs = 1000000000LL / o.fps;
  Time last = -1;
  int frame = 0;
  std::vector<std::pair<std::string, int>> perStage;  // frames per stage, in order
  for (int slice = 0; slice < 1000000; ++slice) {
    clock->advance(frameNs);
    QMetaObject::invokeMethod(c, &RunController::tick);
    if (!waitShown(w, 120000)) {
      std::fprintf(stderr, "no frame after slice %d\n", slice);
      return 1;
    }
    const auto s = w.liveSnapshot();
    // A frame per new moment: the clock can stand still for a slice when the emulation is
    // behind (a slice ran out of budget at the same time), and such a frame adds nothing.
    if (s->now > last) {
      last = s->now;
      ++frame;
      if (o.view == "timeline") w.timeline()->fitAll();
      const QString file =
          QDir(o.dir).filePath(QString("frame_%1.png").arg(frame, 5, 10, QChar('0')));
      if (!w.grab().save(file)) {
        std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
        return 1;
      }
      out << frame << ',' << s->now << ',' << QString::fromStdString(s->stage) << ',' << o.view
          << '\n';
      if (perStage.empty() || perStage.back().first != s->stage) perStage.emplace_back(s->stage, 0);
      ++perStage.back().second;
    }
    if (s->finished || s->deadlocked) break;
  }
  out.flush();
  const auto s = w.liveSnapshot();
  std::printf("wrote %d frames and frames.csv into %s (end at %lld ps, %s)\n", frame,
              qPrintable(o.dir), static_cast<long long>(s->now), s->stage.c_str());
  // Each frame is 1/fps of the Run button's playback at this speed: the timing per stage.
  for (const auto& [stage, n] : perStage)
    std::printf("  %-20s %5d frames  %7.1f s\n", stage.c_str(), n, static_cast<double>(n) / o.fps);
  std::printf("  %-20s %5d frames  %7.1f s of playback at %g us/s\n", "total", frame,
              static_cast<double>(frame) / o.fps, o.psPerWallSecond / 1e6);
  if (!s->finished) {
    std::fprintf(stderr, "the run did not reach its end\n");
    return 1;
  }
  encode(o);
  return 0;
}

}  // namespace moe::ui
