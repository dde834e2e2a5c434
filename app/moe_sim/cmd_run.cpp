// `moe-sim run [SCENARIO.json] [--impl streaming|phased|flat|both|all] [--verify] [--trace FILE]
//  [--csv FILE] [--export-transfers FILE] [--strict] [-j N] [--why]` (DESIGN.md §6): emulates
//  one MoE layer, prints the per-stage table and the run digest (with --why, what made up
//  dispatch's and combine's time, from their critical paths). Exit 1 when verification fails or
//  a deadlock is diagnosed; exit 2 under --strict when the scenario exceeds a documented
//  limit of the real CANN operators.

#include <iostream>
#include <memory>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/operator_limits_text.h"
#include "app/moe_sim/progress_line.h"
#include "app/moe_sim/run_text.h"
#include "core/run/a2a_matmul_report.h"
#include "core/run/memory_estimate.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"
#include "core/util/output_file.h"

namespace {

struct RunOptions {
  std::string scenarioFile;
  std::string impl;
  bool verify = false;
  std::string traceFile;
  std::string csvFile;
  std::string transfersFile;
  std::string fault;
  std::string workload;
  bool strict = false;
  bool why = false;
  unsigned jobs = 0;
};

// Whether the selection runs a design with the streaming combine, where faults are planted.
bool runsStreamingCombine(const moe::DesignSelection& selection) {
  for (moe::Design d : selection.designs())
    if (moe::designInfo(d).streamingCombine) return true;
  return false;
}

// Why --fault refuses the other selections, naming the designs and the --impl choices that
// run the streaming combine and those that do not.
std::string faultNeedsStreamingCombine() {
  const std::vector<std::string> with = moe::designNames(moe::streamingCombineDesigns());
  const std::vector<std::string> without = moe::designNames(moe::streamingCombineDesigns(false));
  std::vector<std::string> choices;
  for (const std::string& n : moe::designSelectionSpellings())
    if (runsStreamingCombine(*moe::DesignSelection::fromName(n))) choices.push_back(n);
  return "needs the " + moe::nameList(with, "and") + (with.size() > 1 ? " designs" : " design") +
         " (--impl " + moe::nameList(choices, "or") +
         "): the faults are planted in the streaming combine, which the " +
         moe::nameList(without, "and") + " designs do not run";
}

// The output flags, whose count tells whether each was given (an empty path is an error).
struct OutputFlags {
  CLI::Option* trace = nullptr;
  CLI::Option* csv = nullptr;
  CLI::Option* transfers = nullptr;
};

OutputFlags addRunOptions(CLI::App* sub, RunOptions& opt) {
  OutputFlags out;
  sub->add_option("scenario", opt.scenarioFile, "Scenario JSON file")
      ->check(moesim::nonEmptyPath());
  sub->add_option(
         "--impl", opt.impl,
         "Dispatch/combine design: " + moe::designSelectionHelp() + " (default: the scenario's)")
      ->check(CLI::IsMember(moe::enumSpellings("dispatch_impl")));
  sub->add_flag("--verify", opt.verify, "Compare every operator with its golden reference");
  out.trace =
      sub->add_option("--trace", opt.traceFile, "Write a Chrome trace-event JSON file (Perfetto)");
  out.csv = sub->add_option("--csv", opt.csvFile, "Write the per-stage metrics as CSV");
  out.transfers = sub->add_option(
      "--export-transfers", opt.transfersFile,
      "Write every transfer the flow network carried as CSV (start, bytes, path), with the "
      "resource table, for bench/simgrid_peer");
  sub->add_option(
         "--fault", opt.fault,
         "Inject a fault into the streaming combine: drop-tail (one tail publish is lost) or "
         "stall-core (one forwarder hangs); the deadlock watch must diagnose it (exit 1)")
      ->check(CLI::IsMember({"drop-tail", "stall-core"}));
  sub->add_flag("--strict", opt.strict,
                "Treat every limit of the real CANN operators the scenario exceeds as an error "
                "(exit 2) instead of a warning");
  sub->add_flag("--why", opt.why,
                "Explain dispatch's and combine's time: walk each one's critical path back from "
                "its last event and rank the roles, links, rings and waits that made it up");
  sub->add_option("-j,--jobs", opt.jobs,
                  "Designs emulated at once (default: one per design, when the cores and the "
                  "memory allow); the report is the same either way")
      ->check(CLI::Range(1u, 64u));
  sub->add_option("--workload", opt.workload,
                  "moe-layer or alltoall-matmul-rs (default: the scenario's)")
      ->check(CLI::IsMember(moe::enumSpellings("workload.kind")));
  return out;
}

// The scenario the file and flags describe, checked as `validate` checks it, with the
// flags that do not apply to it refused.
moe::Scenario scenarioForRun(const RunOptions& opt) {
  moe::Scenario sc =
      opt.scenarioFile.empty() ? moe::defaultScenario() : moe::loadScenarioFile(opt.scenarioFile);
  // The routing trace is known only now.
  moe::refuseOutputOverInput("--trace", opt.traceFile, {sc.routing.traceFile});
  moe::refuseOutputOverInput("--csv", opt.csvFile, {sc.routing.traceFile});
  if (auto w = moe::workloadFromName(opt.workload)) sc.workload.kind = *w;
  if (auto impl = moe::DesignSelection::fromName(opt.impl)) sc.dispatchImpl = *impl;
  const bool fused = sc.workload.kind == moe::WorkloadKind::AlltoallMatmulRs;
  // The faults are planted in the MoE layer's streaming combine; the fused operator has no
  // such stage, so accepting the flag would report a fault that never happened.
  moe::require(opt.fault.empty() || !fused, "--fault",
               "applies to the moe-layer workload only (this run is alltoall-matmul-rs)");
  moe::require(opt.transfersFile.empty() || !fused, "--export-transfers",
               "applies to the moe-layer workload only (this run is alltoall-matmul-rs)");
  moe::require(!opt.why || !fused, "--why",
               "applies to the moe-layer workload only (this run is alltoall-matmul-rs)");
  moe::require(opt.fault.empty() || runsStreamingCombine(sc.dispatchImpl), "--fault",
               faultNeedsStreamingCombine());
  const moe::Fault fault = moe::faultFromName(opt.fault).value_or(moe::Fault::None);
  // A planted fault asks for a diagnosis, and a deadlock depends only on the protocol and
  // its timing, which payload "none" runs unchanged (same events, same diagnosis). Moving
  // the bytes would only delay the answer: mostly the host zeroing fresh pages.
  if (fault != moe::Fault::None && sc.payload == moe::PayloadMode::Full) {
    sc.payload = moe::PayloadMode::None;
    std::cerr << "note: --fault runs with payload \"none\": the deadlock and its diagnosis do "
                 "not depend on the bytes; run without --fault to check the data\n";
  }
  // The same decision `validate` makes, in the same order (the run's own resolve checks
  // again; the check is cheap next to the run), before the operator limits as there.
  moe::checkScenario(sc);
  return sc;
}

template <typename WriteTrace, typename WriteCsv>
void writeTraceAndCsv(const RunOptions& opt, const WriteTrace& writeTrace,
                      const WriteCsv& writeCsv) {
  if (!opt.traceFile.empty()) {
    moe::AllocationScope scope("the Chrome trace");
    moe::writeFileAtomically(opt.traceFile, "--trace", writeTrace);
  }
  if (!opt.csvFile.empty()) moe::writeFileAtomically(opt.csvFile, "--csv", writeCsv);
}

// Runs the scenario and prints its report; the exit code.
int runAndReport(const RunOptions& opt, const moe::Scenario& sc) {
  const moe::ResolvedScenario resolved = moe::ResolvedScenario::resolve(sc);
  const moe::Fault fault = moe::faultFromName(opt.fault).value_or(moe::Fault::None);
  moe::ProgressLine line;
  moe::RunProgress progress;
  if (moe::ProgressLine::wanted())
    progress = [&line](const std::string& design, const std::string& stage, moe::Time now,
                       std::uint64_t events) { line.update(design, stage, now, events); };
  if (sc.workload.kind == moe::WorkloadKind::AlltoallMatmulRs) {
    const moe::A2aMatmulReport report = moe::runA2aMatmulWorkload(resolved, opt.verify, progress);
    line.clear();
    moesim::printA2aMatmulReport(std::cout, report);
    writeTraceAndCsv(
        opt, [&](std::ostream& o) { moe::writeA2aMatmulTrace(o, report); },
        [&](std::ostream& o) { moe::writeA2aMatmulCsv(o, report); });
    return report.ok() ? 0 : 1;
  }
  std::vector<moe::TransferLog> transfers;
  // The observation logs are read only by the trace.
  const moe::RunReport report = moe::runScenario(
      resolved, opt.verify, fault, progress, opt.transfersFile.empty() ? nullptr : &transfers,
      opt.jobs, opt.why, /*observationLogs=*/!opt.traceFile.empty());
  line.clear();
  moesim::printReport(std::cout, report);
  writeTraceAndCsv(
      opt, [&](std::ostream& o) { moe::writeReportTrace(o, report); },
      [&](std::ostream& o) { moe::writeStagesCsv(o, report.results); });
  if (!opt.transfersFile.empty() && !report.runs.empty())
    moe::writeFileAtomically(opt.transfersFile, "--export-transfers", [&](std::ostream& o) {
      moe::writeTransferCsv(o, report.runs.front()->emulation().machine(), transfers);
    });
  return report.ok() ? 0 : 1;
}

const moesim::RegisterCommand kRun([](CLI::App& app, int& exitCode) {
  auto opt = std::make_shared<RunOptions>();
  auto* sub =
      app.add_subcommand("run", "Emulate one MoE layer (the built-in default without a file)");
  const OutputFlags flags = addRunOptions(sub, *opt);
  sub->callback([opt, flags, &exitCode] {
    // Output paths first, so a bad one costs nothing: an empty path, a device, a missing
    // directory, or two outputs (or an output and the scenario) naming the same file.
    moe::checkOutputPaths(
        {{"--trace", opt->traceFile, flags.trace->count() > 0},
         {"--csv", opt->csvFile, flags.csv->count() > 0},
         {"--export-transfers", opt->transfersFile, flags.transfers->count() > 0}},
        {opt->scenarioFile});
    const moe::Scenario sc = scenarioForRun(*opt);
    // Where the scenario leaves what the real CANN operators accept (stderr, before the run).
    if (moesim::reportOperatorLimits(std::cerr, sc, opt->strict)) {
      exitCode = 2;
      return;
    }
    // A run that will take minutes says so before it starts (stderr: stdout stays the report).
    if (const std::string note = moe::largeWorkNote(sc); !note.empty()) std::cerr << note << "\n";
    exitCode = runAndReport(*opt, sc);
  });
});

}  // namespace
