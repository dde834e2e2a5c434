#pragma once
// The result of one emulated run, as a value: every front end (the CLI's report, the sweep,
// the tuner, fidelity, the workbench's A/B and Compare views) reads its stages, totals and
// digest from here, whatever the design or workload.

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/time.h"
#include "core/runtime/stage_report.h"
#include "core/runtime/verification.h"

namespace moe {

// Bytes a design reserves for its communication; zero where a design has no such buffer.
struct RunBuffers {
  std::int64_t dispatchBytes = 0;      // dispatch rings or full windows, peak
  std::int64_t combineBytes = 0;       // combine rings or full windows, peak
  std::int64_t peakRingOccupancy = 0;  // most bytes in flight in any one ring
  std::int64_t workspaceBytes = 0;     // the fused operator's per-rank workspace
};

// What the engine did to produce the run.
struct RunCounters {
  std::uint64_t events = 0;
  std::int64_t rdmaPosts = 0;
  std::uint64_t bandwidthRecomputes = 0;  // max-min solves of the link model
  std::uint64_t flowsRecomputed = 0;      // transfers re-rated, summed over the solves
};

struct RunResult {
  std::string design;  // "phased", "streaming", "flat", "pipelined", "sequential"
  bool finished = false;
  std::vector<StageReport> stages;  // in run order
  // The clock at the end: includes operations still landing after the last stage's cores
  // finished, so it can be later than the last stage's end.
  Time end = 0;
  RunCounters counters;
  RunBuffers buffers;
  // A run that stopped with work left: the stage it stopped in, when, and which cores wait
  // on what (empty diagnosis when the run finished).
  bool deadlocked = false;
  std::string deadlockStage;
  std::string deadlockDiagnosis;
  bool verified = false;                        // verification below was computed
  std::vector<VerificationCheck> verification;  // against the golden reference
  std::uint64_t digest = 0;                     // event log and every output byte

  // The stage with this id, or nullptr when the design has none.
  const StageReport* stage(StageId id) const;
  // Its duration; 0 when the design has no such stage.
  Time stageTime(StageId id) const;
  bool verificationPassed() const;
  // "deadlock in <design> run during stage '<stage>' at <t> us: no event can fire while
  // these cores wait:" and the diagnosis; empty when the run did not deadlock.
  std::string deadlockText() const;
};

}  // namespace moe
