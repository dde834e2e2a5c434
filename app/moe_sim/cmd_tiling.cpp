// `moe-sim tiling [SCENARIO.json] [--out FILE]`: the ring tiling the role model proposes for
// a scenario (chunk size, queue depth, cores per role), as the scenario's "rings" JSON on
// stdout, and on stderr why each value is what it is and each constraint with its margin.
// With --out, the whole scenario with the proposal: those rings and the combine's RDMA
// batch the model prefers with them (core/plan/rdma_batch_proposal.h).

#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/scenario_out.h"
#include "core/plan/dispatch_tiling.h"
#include "core/plan/rdma_batch_proposal.h"
#include "core/plan/tiling_explain.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"
#include "core/util/output_file.h"
#include "core/util/printable.h"

namespace {

const moesim::RegisterCommand kTiling([](CLI::App& app, int& exitCode) {
  auto* sub = app.add_subcommand(
      "tiling", "Propose a ring tiling (chunk, queue, cores per role) for a scenario");
  auto file = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  sub->add_option("scenario", *file, "Scenario JSON file (default: the built-in default)")
      ->check(moesim::nonEmptyPath());
  CLI::Option* outFlag = sub->add_option(
      "--out", *out,
      "Also write the scenario with the proposal (these rings and combine.rdma_batch_bytes) "
      "to FILE, ready for moe-sim run");
  sub->callback([file, out, outFlag, &exitCode] {
    if (outFlag->count() > 0) moe::checkOutputPaths({{"--out", *out, true}}, {*file});
    moe::Scenario sc = file->empty() ? moe::defaultScenario() : moe::loadScenarioFile(*file);
    // The scenario is judged by the function `validate` and `run` use, twice: as given, and
    // with the proposed rings in place. A scenario refused only for its own rings (or what
    // they cost) is what this command is for; anything the proposal does not fix is refused
    // with the message `validate` gives.
    std::exception_ptr givenRefused;
    std::string givenWhy;
    try {
      moe::checkScenario(sc);
    } catch (const moe::InputError& e) {
      givenRefused = std::current_exception();
      givenWhy = e.what();
    }
    int P = 0;
    try {
      P = moe::placePerRankOf(sc);
      sc.rings = moe::proposeTiling(sc, P);
      moe::checkScenario(sc);
    } catch (const moe::InputError&) {
      if (givenRefused) std::rethrow_exception(givenRefused);
      throw;
    }
    if (givenRefused)
      std::cerr << "note: the scenario's own rings are refused (" << moe::printable(givenWhy)
                << "); the proposal below is not\n";
    std::cout << moe::scenarioToJson(sc)["rings"].dump(2) << "\n";
    for (const moe::TilingLine& l : moe::explainTiling(sc, P))
      std::cerr << l.field << ": " << l.text << "\n";
    if (outFlag->count() > 0) {
      sc.combine.rdmaBatchBytes = moe::proposeRdmaBatch(sc).bytes;
      moesim::writeScenarioFile(sc, *out, "--out");
      std::cerr << "wrote " << *out << ": the scenario with these rings and "
                << "combine.rdma_batch_bytes " << sc.combine.rdmaBatchBytes << "\n";
    }
    exitCode = 0;
  });
});

}  // namespace
