// `moe-sim designs`: every design the emulator runs, from the design registry: its workload,
// its stages in run order, the scenario knobs that change it, and what it is. `--json` gives
// the same as one JSON array, for scripts.

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "app/moe_sim/command_registry.h"
#include "core/run/design_registry.h"
#include "core/scenario/scenario_enums.h"

namespace {

nlohmann::json designJson(const moe::DesignEntry& e) {
  nlohmann::json stages = nlohmann::json::array(), knobs = nlohmann::json::array();
  for (const moe::DesignStage& st : e.stages) stages.push_back(std::string(st.name));
  for (std::string_view k : e.knobs) knobs.push_back(std::string(k));
  return {{"name", std::string(e.name)},
          {"workload", moe::toString(e.workload)},
          {"description", std::string(e.description)},
          {"stages", std::move(stages)},
          {"knobs", std::move(knobs)}};
}

void printDesign(std::ostream& out, const moe::DesignEntry& e) {
  out << e.name << " (" << moe::toString(e.workload) << "): " << e.description << "\n";
  out << "  stages:";
  for (const moe::DesignStage& st : e.stages) out << " " << st.name;
  out << "\n  knobs: ";
  for (std::size_t i = 0; i < e.knobs.size(); ++i) out << (i ? ", " : "") << e.knobs[i];
  out << "\n";
}

const moesim::RegisterCommand kDesigns([](CLI::App& app, int& exitCode) {
  auto* sub = app.add_subcommand(
      "designs", "List the designs: workload, stages in run order and the knobs that change them");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "Print the list as a JSON array");
  sub->callback([json, &exitCode] {
    if (*json) {
      nlohmann::json all = nlohmann::json::array();
      for (const moe::DesignEntry& e : moe::designRegistry()) all.push_back(designJson(e));
      std::cout << all.dump(2) << "\n";
    } else {
      for (const moe::DesignEntry& e : moe::designRegistry()) printDesign(std::cout, e);
    }
    exitCode = 0;
  });
});

}  // namespace
