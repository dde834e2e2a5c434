#pragma once
// What a front end needs to drive one emulated run without knowing its workload: step it
// event by event, see which stage it is in, observe its Emulation, verify it against its
// golden reference at the end, and read its figures as one RunResult. LayerRun (the MoE
// layer) and A2aMatmulRun (the fused AlltoAll-Matmul-ReduceScatter operator) implement it;
// the CLI's reports, the studies and the workbench's views work on this interface only.

#include <optional>
#include <string>
#include <vector>

#include "core/runtime/emulation.h"
#include "core/runtime/run_result.h"
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
  // The running stage's id; none before the first stage and after the last.
  virtual std::optional<StageId> currentStageId() const = 0;
  // The stages run so far, in order.
  virtual const std::vector<StageReport>& stages() const = 0;
  // The communication buffers the design reserved (zero where it has none).
  virtual RunBuffers buffers() const = 0;
  // Which design this run emulates, for labels: "streaming", "phased", "pipelined", ...
  virtual std::string design() const = 0;
  // Computes the golden reference and compares the outputs and protocol invariants with
  // it. Call once the run has finished; may take a while on large scenarios.
  virtual std::vector<VerificationCheck> verifyAgainstReference() const = 0;
  // Hash of the event log and every output byte: same scenario and seed, same digest.
  virtual std::uint64_t digest() const = 0;
  // Gives the finished run's tensors back to the system once nothing reads them (figures,
  // stages and digest stay). A run that holds none does nothing.
  virtual void releaseTensors() {}

  // Everything a report shows about the run, as a value: stages, end time, counters,
  // buffers, the deadlock diagnosis and the digest. `verification` is what the caller
  // checked (verifyAgainstReference() or a check against a shared reference); without it,
  // the result says it was not verified.
  RunResult result() const;
  RunResult result(std::vector<VerificationCheck> verification) const;
};

}  // namespace moe
