#pragma once
// One MoE layer emulated end to end (SPEC §3): gating -> UpdateExpert -> layout ->
// dispatch (phased or streaming) -> experts. It is steppable event by event, so the CLI
// runs it to the end and the workbench can pause, step and observe it.

#include <memory>
#include <string>
#include <vector>

#include "core/reference/dispatch_reference.h"
#include "core/reference/gating.h"
#include "core/reference/layout.h"
#include "core/reference/update_expert.h"
#include "core/runtime/emulation.h"
#include "core/runtime/layer_context.h"
#include "core/runtime/steppable_run.h"

namespace moe {

struct StageReport {
  std::string name;
  Time start = 0;
  Time end = 0;
  double linkBytes = 0;  // bytes carried over HCCS and NIC links during the stage
  double hccsBytes = 0;
  double nicBytes = 0;
  Time duration() const { return end - start; }
};

// The golden chain: the references of every operator applied to the same gating output.
// Dispatch rows are not materialized (see dispatchReference): verification checks each
// received row, and each expert output row, against the source row its expandIdx names.
struct ReferenceLayer {
  std::shared_ptr<const std::vector<RankGating>> gating;
  std::vector<UpdateExpertResult> updateExpert;  // per rank
  std::vector<LayoutResult> layout;              // per rank
  std::vector<DispatchOutput> dispatch;          // per rank, expandX empty
};
ReferenceLayer computeReference(const Scenario& sc,
                                std::shared_ptr<const std::vector<RankGating>> gating);

// Instances per rank of the scenario's eplb table; throws InputError ("eplb....") when the
// table breaks a MoeUpdateExpert rule or contradicts eplb.place_per_rank.
int scenarioPlacePerRank(const Scenario& sc);

// The checks LayerRun's constructor makes, without building anything: the eplb table (as
// MoeUpdateExpert validates it) and the ring tiling. Throws InputError naming the field.
void checkRunnable(const Scenario& sc);

class LayerRun : public SteppableRun {
 public:
  // impl must be Phased or Streaming. Throws InputError for a scenario the layer cannot
  // run (an invalid eplb table, a tiling that cannot work), naming the field.
  LayerRun(const Scenario& sc, DispatchImpl impl,
           std::shared_ptr<const std::vector<RankGating>> gating = {}, Fault fault = Fault::None);
  ~LayerRun() override;

  DispatchImpl impl() const { return impl_; }
  Emulation& emulation() override { return *emu_; }
  const Emulation& emulation() const override { return *emu_; }
  const LayerContext& context() const { return *ctx_; }
  const std::vector<RankGating>& gating() const { return *gating_; }

  // Runs one event. Returns false once nothing is left to run (finished or deadlocked).
  bool step() override;
  void runToEnd() override;
  bool finished() const override;
  const std::string& currentStage() const override { return stage_; }
  std::string design() const override;

  const std::vector<StageReport>& stages() const { return stages_; }
  // The per-rank outputs, read back from the cards' GM. Without rows, expandX stays empty
  // (the metadata alone is small; the rows are hundreds of MB on the default scenario).
  std::vector<DispatchOutput> dispatchOutputs(bool withRows = true) const;
  std::vector<std::vector<bf16>> expertOutputs() const;
  std::vector<LayoutResult> layoutOutputs() const;
  std::vector<std::vector<std::int32_t>> balancedIds() const;
  std::vector<std::vector<std::uint8_t>> keepMasks() const;

  // Compares every operator's emulated output with the golden reference, and checks the
  // protocol invariants. Call after the run finished.
  std::vector<VerificationCheck> verify(const ReferenceLayer& ref) const;
  // verify() against computeReference of this run's scenario and gating.
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
  void releaseTensors();

 private:
  Task driver();
  template <typename Launch>
  Task stage(std::string name, Launch launch);
  void allocateDispatchOutputs();

  Scenario sc_;
  DispatchImpl impl_;
  std::shared_ptr<const std::vector<RankGating>> gating_;
  std::unique_ptr<Emulation> emu_;
  std::unique_ptr<LayerContext> ctx_;
  std::vector<StageReport> stages_;
  std::string stage_ = "not started";
  std::int64_t commBufferBytes_ = 0;
  std::int64_t combineBufferBytes_ = 0;
  int driverProgram_ = -1;
  std::uint64_t outputHash_ = 0;
  std::uint64_t combineHash_ = 0;
  std::uint64_t tensorsHash_ = 0;
  bool released_ = false;
};

// The eplb_table a scenario uses: its explicit table, or the identity (expert e on
// instance e). Returns {rows [E*F], F}.
std::pair<std::vector<std::int32_t>, int> scenarioTable(const Scenario& sc);

// UpdateExpert arguments for one rank, from the gating output.
UpdateExpertArgs updateExpertArgs(const Scenario& sc, const RankGating& g, int rank);

}  // namespace moe
