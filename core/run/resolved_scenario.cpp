#include "core/run/resolved_scenario.h"

#include "core/plan/dispatch_tiling.h"
#include "core/run/expert_balance.h"
#include "core/run/layer_args.h"
#include "core/run/memory_estimate.h"

namespace moe {

CheckedScenario checkScenario(const Scenario& given, InputCheck inputs) {
  // The fused operator's shape rules come first: its inputs would be generated from them.
  if (given.workload.kind == WorkloadKind::AlltoallMatmulRs)
    validateA2aMatmul(shapeFromWorkload(given.workload), given.hardware);
  // Then the MoE layer's routing trace, read and checked as the run reads it: a scenario
  // that names a missing, malformed or short trace is invalid, not a run that fails later.
  if (given.workload.kind == WorkloadKind::MoeLayer && inputs == InputCheck::ReadRoutingTrace)
    checkRoutingTrace(given);
  CheckedScenario c;
  c.scenario = withEplbTable(given);
  c.placePerRank = scenarioPlacePerRank(c.scenario);
  validateDispatchTiling(c.scenario, c.placePerRank);
  // Memory last: its figures assume the shape checks above have passed.
  if (given.workload.kind == WorkloadKind::MoeLayer)
    checkMemory(c.scenario, c.placePerRank, hostMemoryLimit());
  return c;
}

int placePerRankOf(const Scenario& given) {
  return scenarioPlacePerRank(withEplbTable(given));
}

ResolvedScenario ResolvedScenario::resolve(const Scenario& given) {
  return resolve(given, nullptr);
}

ResolvedScenario ResolvedScenario::resolve(const Scenario& given,
                                           std::shared_ptr<const std::vector<RankGating>> gating) {
  ResolvedScenario r;
  r.given_ = given;
  // A caller's gating was generated already (from this scenario's trace, if any).
  r.checked_ =
      checkScenario(given, gating ? InputCheck::InputsGiven : InputCheck::ReadRoutingTrace);
  if (given.workload.kind == WorkloadKind::AlltoallMatmulRs) {
    const A2aMatmulShape shape = shapeFromWorkload(given.workload);
    r.a2aInputs_ =
        std::make_shared<const A2aMatmulInputs>(generateA2aMatmulInputs(shape, given.seed));
    r.a2aReference_ = std::make_shared<const A2aReferenceOnce>(r.a2aInputs_);
  } else {
    r.gating_ =
        gating
            ? std::move(gating)
            : std::make_shared<const std::vector<RankGating>>(generateGating(r.checked_.scenario));
  }
  return r;
}

}  // namespace moe
