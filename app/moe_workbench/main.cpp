// moe-workbench: the Qt workbench over the emulation core (SPEC §5). Opens with the
// built-in default scenario loaded and ready to run; `--screenshot DIR` writes one PNG
// per view and exits; an optional scenario file argument replaces the default.

#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>

#include "core/scenario/scenario_json.h"
#include "screenshot.h"
#include "ui/widgets/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("moe-workbench");
  QCommandLineParser cli;
  cli.setApplicationDescription("MoE Pipeline Workbench: live views of rings, cores, links and expert load");
  cli.addHelpOption();
  QCommandLineOption shot("screenshot", "Run the default scenario headlessly and write one PNG per view into DIR.",
                          "DIR");
  cli.addOption(shot);
  cli.addPositionalArgument("scenario", "Scenario JSON file (default: the built-in default scenario).");
  cli.process(app);

  moe::ui::MainWindow w;
  if (!cli.positionalArguments().isEmpty()) {
    try {
      w.loadScenario(moe::loadScenarioFile(cli.positionalArguments().first().toStdString()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  if (cli.isSet(shot)) return moe::ui::writeScreenshots(w, cli.value(shot));
  w.show();
  return QApplication::exec();
}
