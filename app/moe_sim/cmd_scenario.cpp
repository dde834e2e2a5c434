// `moe-sim scenario --default` and `moe-sim validate FILE` (DESIGN.md §6). Bad input is thrown as
// moe::InputError and reported by main() as "error: PATH: RULE" with exit code 2.

#include <iostream>
#include <memory>
#include <string>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/operator_limits_text.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"

namespace {

const moesim::RegisterCommand kScenario([](CLI::App& app, int& exitCode) {
  auto* sub = app.add_subcommand("scenario", "Print a scenario as JSON");
  // CLI11 writes the flag through this pointer during parse(); the callback keeps it alive.
  auto useDefault = std::make_shared<bool>(false);
  sub->add_flag("--default", *useDefault,
                "The built-in default scenario (the one `run` uses without a file)")
      ->required();
  sub->callback([useDefault, &exitCode] {
    std::cout << moe::scenarioToJson(moe::defaultScenario()).dump(2) << "\n";
    exitCode = 0;
  });
});

const moesim::RegisterCommand kValidate([](CLI::App& app, int& exitCode) {
  auto* sub = app.add_subcommand("validate", "Check a scenario file; prints \"ok: FILE\"");
  // Owned by the callback: CLI11 writes the option through this pointer during parse().
  auto file = std::make_shared<std::string>();
  auto strict = std::make_shared<bool>(false);
  sub->add_option("file", *file, "Scenario JSON file")->required()->check(moesim::nonEmptyPath());
  sub->add_flag("--strict", *strict,
                "Treat every exceeded limit of the real CANN operators as an error (exit 2)");
  sub->callback([file, strict, &exitCode] {
    // The same checks `run` makes before it starts: the eplb table and the ring tiling.
    const moe::Scenario sc = moe::loadScenarioFile(*file);
    moe::checkScenario(sc);
    // Then the real operators' limits, as `run` reports them.
    if (moesim::reportOperatorLimits(std::cerr, sc, *strict)) {
      exitCode = 2;
      return;
    }
    std::cout << "ok: " << *file << "\n";
    exitCode = 0;
  });
});

}  // namespace
