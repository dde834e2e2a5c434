// `moe-sim run [SCENARIO.json] [--impl streaming|phased|both] [--verify] [--trace FILE]
//  [--csv FILE]` (SPEC §6): emulates one MoE layer, prints the per-stage table and the run
// digest. Exit 1 when verification fails or a deadlock is diagnosed.

#include <fstream>
#include <iostream>
#include <memory>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/run_text.h"
#include "core/pipeline/a2a_matmul_report.h"
#include "core/pipeline/resolved_scenario.h"
#include "core/pipeline/run_report.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

namespace {

struct RunOptions {
  std::string scenarioFile;
  std::string impl;
  bool verify = false;
  std::string traceFile;
  std::string csvFile;
  std::string fault;
  std::string workload;
};

const moesim::RegisterCommand kRun([](CLI::App& app, int& exitCode) {
  auto opt = std::make_shared<RunOptions>();
  auto* sub =
      app.add_subcommand("run", "Emulate one MoE layer (the built-in default without a file)");
  sub->add_option("scenario", opt->scenarioFile, "Scenario JSON file");
  sub->add_option("--impl", opt->impl,
                  "Dispatch design: streaming, phased or both (default: the scenario's)")
      ->check(CLI::IsMember({"streaming", "phased", "both"}));
  sub->add_flag("--verify", opt->verify, "Compare every operator with its golden reference");
  sub->add_option("--trace", opt->traceFile, "Write a Chrome trace-event JSON file (Perfetto)");
  sub->add_option("--csv", opt->csvFile, "Write the per-stage metrics as CSV");
  sub->add_option(
         "--fault", opt->fault,
         "Inject a fault into the streaming combine: drop-tail (one tail publish is lost) or "
         "stall-core (one forwarder hangs); the deadlock watch must diagnose it (exit 1)")
      ->check(CLI::IsMember({"drop-tail", "stall-core"}));
  sub->add_option("--workload", opt->workload,
                  "moe-layer or alltoall-matmul-rs (default: the scenario's)")
      ->check(CLI::IsMember({"moe-layer", "alltoall-matmul-rs"}));
  sub->callback([opt, &exitCode] {
    moe::Scenario sc = opt->scenarioFile.empty() ? moe::defaultScenario()
                                                 : moe::loadScenarioFile(opt->scenarioFile);
    if (opt->workload == "moe-layer") sc.workload.kind = moe::WorkloadKind::MoeLayer;
    if (opt->workload == "alltoall-matmul-rs")
      sc.workload.kind = moe::WorkloadKind::AlltoallMatmulRs;
    if (opt->impl == "streaming") sc.dispatchImpl = moe::DispatchImpl::Streaming;
    if (opt->impl == "phased") sc.dispatchImpl = moe::DispatchImpl::Phased;
    if (opt->impl == "both") sc.dispatchImpl = moe::DispatchImpl::Both;
    const moe::Fault fault = opt->fault == "drop-tail"    ? moe::Fault::DropTail
                             : opt->fault == "stall-core" ? moe::Fault::StallCore
                                                          : moe::Fault::None;
    const bool fused = sc.workload.kind == moe::WorkloadKind::AlltoallMatmulRs;
    moe::require(fault == moe::Fault::None || !fused, "--fault",
                 "faults are injected into the MoE layer's streaming combine; the fused "
                 "alltoall-matmul-rs workload has none");
    moe::require(fault == moe::Fault::None || sc.dispatchImpl == moe::DispatchImpl::Streaming,
                 "--fault", "faults are injected into the streaming combine: add --impl streaming");
    // Open output files before the run, so a bad path costs nothing.
    std::ofstream trace, csv;
    if (!opt->traceFile.empty()) {
      trace.open(opt->traceFile);
      moe::require(trace.good(), "--trace", "cannot write " + opt->traceFile);
    }
    if (!opt->csvFile.empty()) {
      csv.open(opt->csvFile);
      moe::require(csv.good(), "--csv", "cannot write " + opt->csvFile);
    }
    const moe::ResolvedScenario resolved = moe::ResolvedScenario::resolve(sc);
    if (fused) {
      const moe::A2aMatmulReport report = moe::runA2aMatmulWorkload(resolved, opt->verify);
      moesim::printA2aMatmulReport(std::cout, report);
      if (csv.is_open()) moe::writeA2aMatmulCsv(csv, report);
      if (trace.is_open()) moe::writeA2aMatmulTrace(trace, report);
      exitCode = report.ok() ? 0 : 1;
      return;
    }
    const moe::RunReport report = moe::runScenario(resolved, opt->verify, fault);
    moesim::printReport(std::cout, report);
    if (trace.is_open()) moe::writeReportTrace(trace, report);
    if (csv.is_open()) moe::writeReportCsv(csv, report);
    exitCode = report.ok() ? 0 : 1;
  });
});

}  // namespace
