// moe-workbench: the Qt workbench over the emulation core (SPEC §5). Opens with the
// built-in default scenario loaded and ready to run; `--screenshot DIR` writes one PNG
// per view and exits; an optional scenario file argument replaces the default, and
// `--workload KIND` picks the workload (as in moe-sim run).

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
  cli.setApplicationDescription(
      "MoE Pipeline Workbench: live views of rings, cores, links and expert load");
  cli.addHelpOption();
  QCommandLineOption shot(
      "screenshot",
      "Run the scenario headlessly to a busy moment and write one PNG per view into DIR.", "DIR");
  cli.addOption(shot);
  QCommandLineOption workload("workload",
                              "moe-layer or alltoall-matmul-rs (default: the scenario's).", "KIND");
  cli.addOption(workload);
  cli.addPositionalArgument("scenario",
                            "Scenario JSON file (default: the built-in default scenario).");
  cli.process(app);

  const QString kind = cli.value(workload);
  if (cli.isSet(workload) && kind != "moe-layer" && kind != "alltoall-matmul-rs") {
    std::fprintf(stderr, "--workload: must be moe-layer or alltoall-matmul-rs, got %s\n",
                 qPrintable(kind));
    return 2;
  }
  moe::ui::MainWindow w;
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
  if (cli.isSet(shot)) return moe::ui::writeScreenshots(w, cli.value(shot));
  w.show();
  return QApplication::exec();
}
