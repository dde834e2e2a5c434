// `moe-sim tiling [SCENARIO.json]`: the ring tiling the tiling helper proposes for a
// scenario (chunk size, queue depth, cores per role), as the scenario's "rings" JSON on
// stdout, and on stderr why each value is what it is and each constraint with its margin.

#include <iostream>
#include <memory>
#include <string>

#include "app/moe_sim/command_registry.h"
#include "core/plan/dispatch_tiling.h"
#include "core/plan/tiling_explain.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"

namespace {

const moesim::RegisterCommand kTiling([](CLI::App& app, int& exitCode) {
  auto* sub = app.add_subcommand(
      "tiling", "Propose a ring tiling (chunk, queue, cores per role) for a scenario");
  auto file = std::make_shared<std::string>();
  sub->add_option("scenario", *file, "Scenario JSON file (default: the built-in default)")
      ->check(moesim::nonEmptyPath());
  sub->callback([file, &exitCode] {
    moe::Scenario sc = file->empty() ? moe::defaultScenario() : moe::loadScenarioFile(*file);
    const int P = moe::placePerRankOf(sc);
    sc.rings = moe::proposeTiling(sc, P);
    std::cout << moe::scenarioToJson(sc)["rings"].dump(2) << "\n";
    for (const moe::TilingLine& l : moe::explainTiling(sc, P))
      std::cerr << l.field << ": " << l.text << "\n";
    exitCode = 0;
  });
});

}  // namespace
