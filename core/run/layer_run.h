#pragma once
// One MoE layer emulated end to end (DESIGN.md §3): gating -> UpdateExpert -> layout ->
// dispatch (phased or streaming) -> experts -> combine. It is steppable event by event, so
// the CLI runs it to the end and the workbench can pause, step and observe it.
//
// Its parts live in files of their own: layer_run.cpp (tensors and stepping),
// layer_driver.cpp (the host program: the stages in order), reference_chain.h (the golden
// chain), layer_verification.h (the checks, one per stage) and layer_digest.cpp.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/reference/dispatch_reference.h"
#include "core/reference/gating.h"
#include "core/reference/layout.h"
#include "core/reference/update_expert.h"
#include "core/run/reference_chain.h"
#include "core/run/resolved_scenario.h"
#include "core/runtime/emulation.h"
#include "core/runtime/layer_context.h"
#include "core/runtime/stage_runner.h"
#include "core/runtime/steppable_run.h"

namespace moe {

class LayerRun : public SteppableRun {
 public:
  // design must be one of the MoE layer's.
  LayerRun(const ResolvedScenario& rs, Design design, Fault fault = Fault::None);
  ~LayerRun() override;

  Design designId() const { return design_; }
  Emulation& emulation() override { return *emu_; }
  const Emulation& emulation() const override { return *emu_; }
  const LayerContext& context() const { return *ctx_; }
  const Scenario& scenario() const { return sc_; }
  const std::vector<RankGating>& gating() const { return *gating_; }

  // Runs one event. Returns false once nothing is left to run (finished or deadlocked).
  bool step() override;
  void runToEnd() override;
  bool finished() const override;
  const std::string& currentStage() const override { return stages_->current(); }
  std::optional<StageId> currentStageId() const override { return stages_->currentId(); }
  std::string design() const override;
  const std::vector<StageReport>& stages() const override { return stages_->reports(); }
  RunBuffers buffers() const override;

  // The per-rank outputs, read back from the cards' GM. Without rows, expandX stays empty
  // (the metadata alone is small; the rows are hundreds of MB on the default scenario).
  std::vector<DispatchOutput> dispatchOutputs(bool withRows = true) const;
  std::vector<std::vector<bf16>> expertOutputs() const;
  std::vector<LayoutResult> layoutOutputs() const;
  std::vector<std::vector<std::int32_t>> balancedIds() const;
  std::vector<std::vector<std::uint8_t>> keepMasks() const;

  // Compares every operator's emulated output with the golden reference, and checks the
  // protocol invariants (layer_verification.h). Call after the run finished.
  std::vector<VerificationCheck> verify(const ReferenceLayer& ref) const;
  // verify() against the reference given to freeTensorsWhenDead, else against
  // computeReference of this run's scenario and gating.
  std::vector<VerificationCheck> verifyAgainstReference() const override;

  // Peak bytes reserved for dispatch communication buffers (rings or full windows).
  std::int64_t commBufferBytes() const { return commBufferBytes_; }
  std::int64_t combineBufferBytes() const { return combineBufferBytes_; }
  std::int64_t peakRingOccupancy() const;
  // Hash of the event log and every output byte: same scenario and seed, same digest.
  std::uint64_t digest() const override;
  // Hash of the operator outputs through the experts (no timing): equal across designs.
  std::uint64_t outputHash() const;
  // Hash of the combine outputs (their fp32 summation order differs between designs).
  std::uint64_t combineHash() const;
  // Frees the cards' tensor bytes (keeps stages, rings and the event log). A CLI run does
  // this between designs to keep peak memory to one run; outputs read back empty after.
  void releaseTensors() override;
  // Keeps only what later stages read (a CLI run; call before stepping). expert_out shares
  // expand_x's bytes (the experts compute each row in place). When dispatch ends, its
  // outputs are hashed and checked against `ref` if given (the update-expert, layout and
  // dispatch checks of verify); when the experts end, their outputs are, expand_x is
  // gone, and kernels may free what their stage consumed (LayerContext::freeDeadTensors).
  // `ref` must outlive the run. Results and digest are unchanged; dispatchOutputs() and
  // expertOutputs() read back empty rows afterwards.
  void freeTensorsWhenDead(const ReferenceLayer* ref);
  // Destroys dispatch's rings once its stage is over (Emulation::retireRings): for a run
  // that keeps no observation or causal log. Results and digest are unchanged.
  void retireRingsAfterTheirStage() { retireRings_ = true; }
  // Whether the outputs through the experts were settled (hashed, checked, freed) early.
  bool settledThroughExperts() const { return settled_; }

 private:
  Task driver();
  void allocateInputs();
  void allocateDispatchOutputs();
  void settleDispatch();
  void settleThroughExperts();
  // Hashes of the cards' outputs through dispatch, and of the expert outputs.
  std::uint64_t dispatchOutputsHash() const;
  std::uint64_t expertOutputsHash() const;

  Scenario sc_;
  Design design_;
  std::shared_ptr<const std::vector<RankGating>> gating_;
  std::unique_ptr<Emulation> emu_;
  std::unique_ptr<LayerContext> ctx_;
  std::unique_ptr<StageRunner> stages_;
  std::int64_t commBufferBytes_ = 0;
  std::int64_t combineBufferBytes_ = 0;
  int driverProgram_ = -1;
  std::uint64_t outputHash_ = 0;
  std::uint64_t combineHash_ = 0;
  bool released_ = false;
  bool freeWhenDead_ = false;
  bool retireRings_ = false;
  bool settled_ = false;
  bool dispatchSettled_ = false;  // dispatch hashed and checked (expert_out may overwrite it)
  std::uint64_t dispatchHash_ = 0;
  const ReferenceLayer* earlyRef_ = nullptr;
  std::vector<VerificationCheck> earlyChecks_;  // update-expert .. experts, when settled
};

}  // namespace moe
