// moe-workbench: the Qt workbench over the emulation core (DESIGN.md §5). Opens with the
// built-in default scenario loaded and ready to run; `--screenshot DIR` writes one PNG
// per view and exits; an optional scenario file argument replaces the default, and
// `--workload KIND` picks the workload (as in moe-sim run).

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTabWidget>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/scenario/scenario_json.h"
#include "record.h"
#include "screenshot.h"
#include "ui/models/lesson.h"
#include "ui/style/presenter.h"
#include "ui/widgets/frame_log.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/view_registry.h"

namespace {
struct Options {
  QCommandLineOption shot{
      "screenshot",
      "Run the scenario headlessly to a busy moment and write one PNG per view into DIR.", "DIR"};
  QCommandLineOption workload{"workload",
                              "moe-layer or alltoall-matmul-rs (default: the scenario's).", "KIND"};
  QCommandLineOption presenter{"presenter",
                               "Presenter mode for a projector: larger text, lines and cells "
                               "(see --scale) and a high-contrast palette."};
  QCommandLineOption scale{"scale", "Presenter scale factor, 1.25 to 2 (default 1.5).", "F", "1.5"};
  QCommandLineOption lesson{"lesson",
                            "With --screenshot: play lesson NAME (or all lessons), write one "
                            "PNG per step and steps.json (each step's expectations, measured) "
                            "into DIR; exit 4 if an expectation does not hold.",
                            "NAME"};
  QCommandLineOption record{"record",
                            "Play the scenario headlessly (the Run button's playback on a "
                            "simulated clock) and write numbered PNG frames, frames.csv and, "
                            "with ffmpeg, record.gif and record.mp4 into DIR.",
                            "DIR"};
  QCommandLineOption speed{"speed",
                           "Playback speed (Run and --record): emulated microseconds per second "
                           "while data moves between cards; quiet stretches fast-forward "
                           "(default 8).",
                           "US", "8"};
  QCommandLineOption fps{"fps", "With --record: frames per second (default 10).", "N", "10"};
  QCommandLineOption view{
      "view",
      QString("The view to open, and with --record the view to record (%1; "
              "default card for --record, cluster otherwise).")
          .arg(
              QStringList(moe::ui::lessonViews().begin(), moe::ui::lessonViews().end()).join(", ")),
      "NAME", "card"};
  QCommandLineOption frameLog{
      "frame-log",
      "Write one CSV row per redraw tick (gap since the previous tick, redraw and paint "
      "time in ms, shown time, stage, resident memory) into FILE; with --autoplay, print the "
      "worst gap, redraw and paint of the Run and the memory before and after it.",
      "FILE"};
  QCommandLineOption autoplay{
      "autoplay", "Press Run at start-up and quit when the run ends (for --frame-log)."};
  QCommandLineOption failOnElided{
      "fail-on-elided",
      "With --screenshot (and --lesson): exit with code 3 if any label, button, tab, combo "
      "box, chart or painted text is clipped or elided, or toolbar texts run together "
      "(listed on stderr)."};
  QCommandLineOption size{"size",
                          "With --screenshot: the picture size WxH in screen pixels (default "
                          "1920x1080 with --presenter, the projector; else 1400x900).",
                          "WxH"};
};

void describe(QCommandLineParser& cli, Options& o) {
  cli.setApplicationDescription(
      "MoE Pipeline Workbench: live views of rings, cores, links and expert load");
  cli.addHelpOption();
  cli.addOption(o.shot);
  cli.addOption(o.workload);
  cli.addOption(o.presenter);
  cli.addOption(o.scale);
  cli.addOption(o.failOnElided);
  cli.addOption(o.size);
  cli.addOption(o.lesson);
  cli.addOption(o.record);
  cli.addOption(o.speed);
  cli.addOption(o.fps);
  cli.addOption(o.view);
  cli.addOption(o.frameLog);
  cli.addOption(o.autoplay);
  cli.addPositionalArgument("scenario",
                            "Scenario JSON file (default: the built-in default scenario).");
}

// --help needs no window: answer it before a QApplication looks for a display.
bool wantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const QString a = QString::fromLocal8Bit(argv[i]);
    if (a == "--help" || a == "-h" || a == "-?" || a == "--help-all") return true;
  }
  return false;
}

// The value after `name` (as "--name V" or "--name=V"), or `fallback`.
QString rawOption(int argc, char** argv, const QString& name, const QString& fallback) {
  for (int i = 1; i < argc; ++i) {
    const QString a = QString::fromLocal8Bit(argv[i]);
    if (a == name && i + 1 < argc) return QString::fromLocal8Bit(argv[i + 1]);
    if (a.startsWith(name + "=")) return a.mid(name.size() + 1);
  }
  return fallback;
}

bool hasFlag(int argc, char** argv, const QString& name) {
  for (int i = 1; i < argc; ++i)
    if (QString::fromLocal8Bit(argv[i]) == name) return true;
  return false;
}

// Headless modes work without a display server: fall back to the offscreen platform.
void headlessIfNoDisplay(int argc, char** argv) {
  bool headless = false;
  for (int i = 1; i < argc; ++i) {
    const QString a = QString::fromLocal8Bit(argv[i]);
    headless |= a.startsWith("--screenshot") || a.startsWith("--record");
  }
  if (headless && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
}

// Loads the scenario file argument and --workload's workload, if given; false after an
// error message.
bool loadStartScenario(moe::ui::MainWindow& w, const QCommandLineParser& cli, const Options& o) {
  const QString kind = cli.value(o.workload);
  if (cli.isSet(o.workload) && kind != "moe-layer" && kind != "alltoall-matmul-rs") {
    std::fprintf(stderr, "--workload: must be moe-layer or alltoall-matmul-rs, got %s\n",
                 qPrintable(kind));
    return false;
  }
  if (cli.positionalArguments().isEmpty() && !cli.isSet(o.workload)) return true;
  try {
    moe::Scenario sc = cli.positionalArguments().isEmpty()
                           ? moe::defaultScenario()
                           : moe::loadScenarioFile(cli.positionalArguments().first().toStdString());
    if (kind == "moe-layer") sc.workload.kind = moe::WorkloadKind::MoeLayer;
    if (kind == "alltoall-matmul-rs") sc.workload.kind = moe::WorkloadKind::AlltoallMatmulRs;
    w.loadScenario(sc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return false;
  }
  return true;
}

// The screenshots' window size in scaled pixels: presenter screenshots are of a 1920x1080
// projector unless --size says otherwise. Empty after an error message.
std::optional<QSize> screenshotSize(const QCommandLineParser& cli, const Options& o, bool presenter,
                                    double scale) {
  QSize pixels = presenter ? QSize(1920, 1080) : QSize(1400, 900);
  if (cli.isSet(o.size)) {
    const QStringList wh = cli.value(o.size).split('x');
    bool okW = false, okH = false;
    if (wh.size() == 2) pixels = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
    if (!okW || !okH || pixels.width() < 640 || pixels.height() < 480 || pixels.width() > 7680 ||
        pixels.height() > 4320) {
      std::fprintf(stderr, "--size: must be WxH in pixels, 640x480 to 7680x4320, got %s\n",
                   qPrintable(cli.value(o.size)));
      return std::nullopt;
    }
  }
  const double s = presenter ? scale : 1.0;
  return QSize(static_cast<int>(pixels.width() / s), static_cast<int>(pixels.height() / s));
}

// --autoplay: presses Run, and quits once the run has ended and its verdict is in (the frame
// log's summary is complete); the verdict follows the last frame, so this looks a few times
// a second.
void autoplay(moe::ui::MainWindow& w) {
  auto* poll = new QTimer(&w);
  QObject::connect(poll, &QTimer::timeout, &w, [&w] {
    const auto s = w.liveSnapshot();
    if (!s || !(s->finished || s->deadlocked) || !w.verification().done) return;
    if (const moe::ui::FrameLog* log = w.frameLog())
      std::printf("%s", qPrintable(log->summaryText()));
    QCoreApplication::quit();
  });
  poll->start(250);
  QTimer::singleShot(0, &w, [&w] { w.runAction()->trigger(); });
}
}  // namespace

int main(int argc, char** argv) {
  if (wantsHelp(argc, argv)) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("moe-workbench");
    QCommandLineParser cli;
    Options o;
    describe(cli, o);
    cli.process(app);  // prints the help and exits
    return 0;
  }
  headlessIfNoDisplay(argc, argv);
  // The presenter scale must be in place before the QApplication exists.
  const bool presenter = hasFlag(argc, argv, "--presenter");
  bool scaleOk = false;
  const double scale = rawOption(argc, argv, "--scale", "1.5").toDouble(&scaleOk);
  if (!scaleOk || scale < moe::ui::kPresenterMinScale || scale > moe::ui::kPresenterMaxScale) {
    std::fprintf(stderr, "--scale: must be a number from %.2f to %.2f\n",
                 moe::ui::kPresenterMinScale, moe::ui::kPresenterMaxScale);
    return 2;
  }
  if (presenter) moe::ui::requestPresenterScale(scale);
  QApplication app(argc, argv);
  QApplication::setApplicationName("moe-workbench");
  QCommandLineParser cli;
  Options o;
  describe(cli, o);
  cli.process(app);
  const QCommandLineOption& shot = o.shot;
  moe::ui::MainWindow w;
  if (presenter) w.setPresenterMode(true);
  if (!loadStartScenario(w, cli, o)) return 2;
  bool okSpeed = false;
  const double us = cli.value(o.speed).toDouble(&okSpeed);
  if (!okSpeed || us < 1 || us > 10000) {
    std::fprintf(stderr, "--speed: must be 1 to 10000 (emulated us per second)\n");
    return 2;
  }
  if (cli.isSet(o.speed)) w.setPlaybackSpeed(us * 1e6);
  const auto& views = moe::ui::lessonViews();
  if (std::find(views.begin(), views.end(), cli.value(o.view)) == views.end()) {
    QStringList names(views.begin(), views.end() - 1);
    std::fprintf(stderr, "--view: must be %s or %s\n", qPrintable(names.join(", ")),
                 qPrintable(views.back()));
    return 2;
  }
  if (cli.isSet(o.view)) w.showView(cli.value(o.view));
  if (cli.isSet(o.record)) {
    moe::ui::RecordOptions r;
    r.dir = cli.value(o.record);
    bool okFps = false;
    r.fps = cli.value(o.fps).toInt(&okFps);
    r.view = cli.value(o.view);
    if (!okFps || r.fps < 1 || r.fps > 60) {
      std::fprintf(stderr, "--fps: must be an integer from 1 to 60\n");
      return 2;
    }
    r.psPerWallSecond = us * 1e6;
    return moe::ui::recordPlayback(w, r);
  }
  if (cli.isSet(o.lesson) && !cli.isSet(shot)) {
    std::fprintf(stderr, "--lesson: needs --screenshot DIR (or pick the lesson in the app)\n");
    return 2;
  }
  const std::optional<QSize> size = screenshotSize(cli, o, presenter, scale);
  if (!size) return 2;
  if (cli.isSet(o.lesson))
    return moe::ui::writeLessonScreenshots(w, cli.value(shot), cli.value(o.lesson), *size,
                                           cli.isSet(o.failOnElided));
  if (cli.isSet(shot))
    return moe::ui::writeScreenshots(w, cli.value(shot), *size, cli.isSet(o.failOnElided));
  if (cli.isSet(o.frameLog) && !w.setFrameLog(cli.value(o.frameLog))) {
    std::fprintf(stderr, "--frame-log: cannot write %s\n", qPrintable(cli.value(o.frameLog)));
    return 2;
  }
  if (cli.isSet(o.autoplay)) autoplay(w);
  w.show();
  return QApplication::exec();
}
