#pragma once
// One AlltoAll-Matmul-ReduceScatter run (DESIGN.md §3.6), pipelined or sequential, steppable
// event by event like LayerRun: `moe-sim run --workload alltoall-matmul-rs` runs it to the
// end, the workbench pauses, steps and observes it. Both go through this class, so the
// CLI's figures and the GUI's views come from the same code path.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/kernels/a2a_matmul_rs_kernel.h"
#include "core/reference/a2a_matmul_rs.h"
#include "core/run/resolved_scenario.h"
#include "core/runtime/stage_runner.h"
#include "core/runtime/steppable_run.h"

namespace moe {

// The figures of a finished run, as a value (the CLI report keeps these): the run's
// RunResult and what only the fused operator has.
struct A2aMatmulRunResult {
  RunResult run;                       // stages (sequential: all-to-all, matmul, reduce-scatter)
  VerificationCheck completed;         // "<design> run completed": finished, no protocol violation
  std::vector<std::vector<fp16>> out;  // per rank, [M/r, N]
  // Measured: the most workspace bytes any rank had in use, as the sum over its strips of
  // each strip's peak (slots not free at once x slot bytes). An upper bound of the true
  // simultaneous peak, since strips may peak at different times. (run.buffers holds the
  // reserved workspace: a2a slots + partial-sum slots + RS buffer, per rank.)
  std::int64_t workspacePeakInUseBytes = 0;
  bool pipelined() const { return run.design == "pipelined"; }
};

// The scenario the run's machine is built from: as many cards as the workload has ranks
// (whole servers, or one server), full payload.
Scenario a2aMatmulMachineScenario(const Scenario& sc, const A2aMatmulShape& s);

class A2aMatmulRun : public SteppableRun {
 public:
  // The resolved scenario's fused workload, on its generated inputs.
  A2aMatmulRun(const ResolvedScenario& rs, bool pipelined);
  // Explicit inputs (the tests' entry point). Throws InputError (naming the workload field)
  // for a shape the kernel cannot run.
  A2aMatmulRun(const Scenario& sc, std::shared_ptr<const A2aMatmulInputs> in, bool pipelined,
               std::shared_ptr<const A2aReferenceOnce> reference = nullptr);
  ~A2aMatmulRun() override;

  Emulation& emulation() override { return *emu_; }
  const Emulation& emulation() const override { return *emu_; }
  bool step() override;
  void runToEnd() override;
  bool finished() const override;
  const std::string& currentStage() const override { return stages_->current(); }
  std::optional<StageId> currentStageId() const override { return stages_->currentId(); }
  std::string design() const override { return pipelined() ? "pipelined" : "sequential"; }
  const std::vector<StageReport>& stages() const override { return stages_->reports(); }
  RunBuffers buffers() const override;
  std::vector<VerificationCheck> verifyAgainstReference() const override;
  std::uint64_t digest() const override;

  bool pipelined() const { return kernel_->pipelined(); }
  const A2aMatmulShape& shape() const { return in_->shape; }
  const A2aMatmulInputs& inputs() const { return *in_; }
  std::int64_t workspaceBytes() const { return kernel_->workspaceBytes(); }
  std::vector<std::vector<fp16>> outputs() const { return kernel_->outputs(); }

  // "<design> run completed": every program finished and no workspace stage was misused.
  VerificationCheck completion() const;
  // "<design> == reference GEMM", within the tolerance of compareWithReference.
  VerificationCheck verify(const A2aMatmulReference& ref) const;
  // result() with the fused operator's own figures.
  A2aMatmulRunResult fusedResult() const;

 private:
  Task driver();

  std::shared_ptr<const A2aMatmulInputs> in_;
  std::shared_ptr<const A2aReferenceOnce> reference_;  // of in_, shared with other runs on it
  std::unique_ptr<Emulation> emu_;
  std::unique_ptr<A2aMatmulContext> kernel_;
  std::unique_ptr<StageRunner> stages_;
  int driverProgram_ = -1;
};

// Runs one kernel to the end on explicit inputs (the tests' entry point).
A2aMatmulRunResult runA2aMatmul(const Scenario& sc, const A2aMatmulInputs& in, bool pipelined);

}  // namespace moe
