#include "core/run/run_factory.h"

#include <string>

#include "core/run/design_registry.h"
#include "core/util/error.h"

namespace moe {

namespace {
void requireWorkload(const ResolvedScenario& rs, Design design) {
  if (workloadOf(design) == rs.workload()) return;
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on
  // `"..." + std::string&&` in optimized builds.
  std::string offered;
  for (Design d : designsOf(rs.workload())) {
    if (!offered.empty()) offered += " or ";
    offered += designName(d);
  }
  std::string rule = "\"";
  rule += designName(design);
  rule += "\" is not a design of this workload; it offers ";
  rule += offered;
  throw InputError("design", rule);
}

// "phased and flat": the MoE layer's designs a fault cannot be planted in.
std::string withoutStreamingCombine() {
  return nameList(designNames(streamingCombineDesigns(false)), "and");
}
}  // namespace

std::unique_ptr<LayerRun> makeLayerRun(const ResolvedScenario& rs, Design design, Fault fault) {
  requireWorkload(rs, design);
  require(fault == Fault::None || designInfo(design).streamingCombine, "fault",
          "faults are injected into the streaming combine; the " + withoutStreamingCombine() +
              " designs have no rings");
  return std::make_unique<LayerRun>(rs, design, fault);
}

std::unique_ptr<A2aMatmulRun> makeA2aMatmulRun(const ResolvedScenario& rs, Design design) {
  requireWorkload(rs, design);
  return std::make_unique<A2aMatmulRun>(rs, design == Design::Pipelined);
}

std::unique_ptr<SteppableRun> makeRun(const ResolvedScenario& rs, Design design, Fault fault) {
  if (workloadOf(design) == WorkloadKind::AlltoallMatmulRs) {
    require(fault == Fault::None, "fault",
            "faults are injected into the MoE layer's streaming combine, not the fused operator");
    return makeA2aMatmulRun(rs, design);
  }
  return makeLayerRun(rs, design, fault);
}

}  // namespace moe
