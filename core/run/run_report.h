#pragma once
// A whole `moe-sim run` of the MoE layer: one LayerRun per design the scenario asks for, on
// the same gating output, the verification against the golden chain, and its CSV and trace
// exports. The text summary is the CLI's (app/moe_sim/run_text.h).

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/observe/critical_path.h"
#include "core/run/expert_balance.h"
#include "core/run/layer_run.h"
#include "core/run/resolved_scenario.h"

namespace moe {

struct RunReport {
  Scenario given;     // as loaded
  Scenario scenario;  // as run: a generated eplb table in place (withEplbTable)
  // The finished runs, kept for the trace (their emulations hold the event log), in the
  // order of scenarioDesigns.
  std::vector<std::unique_ptr<LayerRun>> runs;
  std::vector<RunResult> results;  // per run: stages, figures, verification, deadlock
  // Per run, when asked for (`why`): each stage's critical-path attribution, in stage order.
  std::vector<std::vector<CriticalPathAttribution>> why;
  bool verified = false;
  std::vector<VerificationCheck> crossChecks;  // phased vs streaming
  std::uint64_t digest = 0;
  ExpertLoad load;  // token slots per rank before and after MoeUpdateExpert
  // The layer's own tensors (x, expanded rows, expert outputs, combine output; bf16,
  // summed over ranks) of the largest run (summed over the runs when designs ran at once),
  // and the process's peak RSS after all runs.
  std::int64_t tensorBytes = 0;
  std::int64_t peakRssBytes = 0;
  unsigned designThreads = 1;  // designs emulated at once (1: one after the other)

  bool ok() const;
};

// Called every 65536 events of a run while it runs (so a long run can show where it is):
// the design, the current stage, the emulated time and the events run so far.
using RunProgress = std::function<void(const std::string& design, const std::string& stage,
                                       Time emulatedNow, std::uint64_t events)>;

// Runs every design the scenario asks for (dispatch_impl); with a fault, only the streaming
// design, where the fault is planted. `transfers`: each design's transfers are appended to
// it (moe-sim run --export-transfers). `threads`: designs emulated at once (0: one per
// design, up to the machine's cores, when their summed host memory fits; 1: one after the
// other). The report does not depend on it, apart from peak RSS and tensorBytes. `why`:
// each run keeps a causal log and the report holds every stage's critical-path attribution
// (core/observe/critical_path.h); events and digests are the same either way.
// `observationLogs`: each run's observer keeps its activity, ring and workspace logs (what
// writeReportTrace and the workbench read); without them the report and digests are the
// same and the run holds less.
RunReport runScenario(const ResolvedScenario& rs, bool verify, Fault fault = Fault::None,
                      const RunProgress& progress = {},
                      std::vector<TransferLog>* transfers = nullptr, unsigned threads = 0,
                      bool why = false, bool observationLogs = true);
// Bytes over a stage's time in GB/s; 0 for rounding dust or an empty stage.
double achievedGBps(double bytes, Time t);
void writeReportTrace(std::ostream& out, const RunReport& r);
// One row per stage of each run: design, stage, times, bytes, achieved bandwidth.
void writeStagesCsv(std::ostream& out, const std::vector<RunResult>& runs);

}  // namespace moe
