#pragma once
// A scenario ready to run. Resolving puts a generated eplb table in place (table_from
// becomes explicit), checks every rule a run needs (the table as MoeUpdateExpert validates
// it, the ring tiling, the fused operator's shape) and generates the workload's inputs once,
// so every design runs on the same tokens. Runs, references and reports take this type, so
// nothing downstream resolves, checks or generates again.

#include <memory>
#include <vector>

#include "core/reference/a2a_matmul_rs.h"
#include "core/reference/gating.h"
#include "core/scenario/scenario.h"

namespace moe {

// The one decision on whether a scenario (already read by scenarioFromJson, so its per-field
// rules hold) can run: every command that takes a scenario (validate, run, tiling, tune,
// export-vectors, each sweep point, the workbench's editor) calls this, through
// ResolvedScenario::resolve or directly, so none accepts what another refuses. It returns the
// scenario as it would run (a generated table in place) and its instances per rank, every
// rule checked in a fixed order: the fused operator's shape, the routing trace's contents,
// the eplb table, the ring tiling, memory. Throws InputError naming the field.
struct CheckedScenario {
  Scenario scenario;
  int placePerRank = 1;
};
// InputsGiven skips reading the routing trace, for a caller that already holds the gating
// generated from it (a tuning candidate differs from its checked base only in the knobs).
enum class InputCheck { ReadRoutingTrace, InputsGiven };
CheckedScenario checkScenario(const Scenario& given,
                              InputCheck inputs = InputCheck::ReadRoutingTrace);
// Instances per rank of a scenario's eplb table (generated first if asked), checked as
// MoeUpdateExpert checks it, but not the ring tiling: what a tiling proposal starts from.
int placePerRankOf(const Scenario& given);

class ResolvedScenario {
 public:
  // Checks, then generates the inputs of the scenario's workload from its seed.
  static ResolvedScenario resolve(const Scenario& given);
  // The MoE layer on a gating output the caller made (a test sharing one gating between
  // scenarios). The gating must have the scenario's shape.
  static ResolvedScenario resolve(const Scenario& given,
                                  std::shared_ptr<const std::vector<RankGating>> gating);

  const Scenario& given() const { return given_; }                // as loaded
  const Scenario& scenario() const { return checked_.scenario; }  // as run
  WorkloadKind workload() const { return given_.workload.kind; }
  int placePerRank() const { return checked_.placePerRank; }
  // The MoE layer's routed tokens, per rank (null for the fused workload).
  const std::shared_ptr<const std::vector<RankGating>>& gating() const { return gating_; }
  // The fused operator's A and W, per rank (null for the MoE layer).
  const std::shared_ptr<const A2aMatmulInputs>& a2aInputs() const { return a2aInputs_; }
  // Their reference output, computed once for every run on them (null for the MoE layer).
  const std::shared_ptr<const A2aReferenceOnce>& a2aReference() const { return a2aReference_; }

 private:
  ResolvedScenario() = default;

  Scenario given_;
  CheckedScenario checked_;
  std::shared_ptr<const std::vector<RankGating>> gating_;
  std::shared_ptr<const A2aMatmulInputs> a2aInputs_;
  std::shared_ptr<const A2aReferenceOnce> a2aReference_;
};

}  // namespace moe
