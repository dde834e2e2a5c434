#pragma once
// What a front end needs to drive one emulated run without knowing its workload: step it
// event by event, see which stage it is in, observe its Emulation, and verify it against
// its golden reference at the end. LayerRun (the MoE layer) and A2aMatmulRun (the fused
// AlltoAll-Matmul-ReduceScatter operator) implement it; the workbench's worker and the
// snapshot work on this interface only.

#include <string>
#include <vector>

#include "core/runtime/emulation.h"
#include "core/runtime/verification.h"

namespace moe {

class SteppableRun {
 public:
  virtual ~SteppableRun() = default;

  virtual Emulation& emulation() = 0;
  virtual const Emulation& emulation() const = 0;
  // Runs one event. Returns false once nothing is left to run (finished or deadlocked).
  virtual bool step() = 0;
  virtual void runToEnd() = 0;
  virtual bool finished() const = 0;
  // Deadlocked: nothing left to run, or the early watch halted the run on a core that
  // nothing can wake.
  bool deadlocked() const {
    return !finished() && (emulation().sim().pendingEvents() == 0 || emulation().sim().halted());
  }
  // "not started", a stage name while it runs, "done" at the end.
  virtual const std::string& currentStage() const = 0;
  // Which design this run emulates, for labels: "streaming", "phased", "pipelined", ...
  virtual std::string design() const = 0;
  // Computes the golden reference and compares the outputs and protocol invariants with
  // it. Call once the run has finished; may take a while on large scenarios.
  virtual std::vector<VerificationCheck> verifyAgainstReference() const = 0;
  // Hash of the event log and every output byte: same scenario and seed, same digest.
  virtual std::uint64_t digest() const = 0;
};

}  // namespace moe
