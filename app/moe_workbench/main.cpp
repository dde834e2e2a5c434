// moe-workbench: the Qt workbench over the emulation core (SPEC §5). Opens with the
// built-in default scenario loaded and ready to run; `--screenshot DIR` writes one PNG
// per view and exits; an optional scenario file argument replaces the default, and
// `--workload KIND` picks the workload (as in moe-sim run).

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <cstdio>

#include "core/scenario/scenario_json.h"
#include "screenshot.h"
#include "ui/style/presenter.h"
#include "ui/widgets/main_window.h"

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
                            "With --screenshot: play lesson NAME (or all lessons) and write one "
                            "PNG per step into DIR.",
                            "NAME"};
  QCommandLineOption failOnElided{
      "fail-on-elided",
      "With --screenshot: exit with code 3 if any label, button, tab or chart text is "
      "clipped or elided (listed on stderr)."};
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
  cli.addOption(o.lesson);
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
  for (int i = 1; i < argc; ++i)
    headless |= QString::fromLocal8Bit(argv[i]).startsWith("--screenshot");
  if (headless && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
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
  const QCommandLineOption& workload = o.workload;

  const QString kind = cli.value(workload);
  if (cli.isSet(workload) && kind != "moe-layer" && kind != "alltoall-matmul-rs") {
    std::fprintf(stderr, "--workload: must be moe-layer or alltoall-matmul-rs, got %s\n",
                 qPrintable(kind));
    return 2;
  }
  moe::ui::MainWindow w;
  if (presenter) w.setPresenterMode(true);
  if (!cli.positionalArguments().isEmpty() || cli.isSet(workload)) {
    try {
      moe::Scenario sc =
          cli.positionalArguments().isEmpty()
              ? moe::defaultScenario()
              : moe::loadScenarioFile(cli.positionalArguments().first().toStdString());
      if (kind == "moe-layer") sc.workload.kind = moe::WorkloadKind::MoeLayer;
      if (kind == "alltoall-matmul-rs") sc.workload.kind = moe::WorkloadKind::AlltoallMatmulRs;
      w.loadScenario(sc);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  if (cli.isSet(o.lesson) && !cli.isSet(shot)) {
    std::fprintf(stderr, "--lesson: needs --screenshot DIR (or pick the lesson in the app)\n");
    return 2;
  }
  if (cli.isSet(o.lesson))
    return moe::ui::writeLessonScreenshots(w, cli.value(shot), cli.value(o.lesson));
  if (cli.isSet(shot)) {
    // Presenter screenshots are of a 1920x1080 projector; the window is in scaled pixels.
    const double s = presenter ? scale : 1.0;
    const QSize size = presenter ? QSize(static_cast<int>(1920 / s), static_cast<int>(1080 / s))
                                 : QSize(1400, 900);
    return moe::ui::writeScreenshots(w, cli.value(shot), size, cli.isSet(o.failOnElided));
  }
  w.show();
  return QApplication::exec();
}
