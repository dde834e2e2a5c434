#include "core/run/run_factory.h"

#include <string>

#include "core/run/design_registry.h"
#include "core/util/error.h"

namespace moe {

namespace {
void requireWorkload(const ResolvedScenario& rs, Design design) {
  if (workloadOf(design) == rs.workload()) return;
  std::string offered;
  for (Design d : designsOf(rs.workload()))
    offered += (offered.empty() ? "" : " or ") + std::string(designName(d));
  throw InputError("design", "\"" + std::string(designName(design)) +
                                 "\" is not a design of this workload; it offers " + offered);
}
}  // namespace

std::unique_ptr<LayerRun> makeLayerRun(const ResolvedScenario& rs, Design design, Fault fault) {
  requireWorkload(rs, design);
  require(
      fault == Fault::None || design == Design::Streaming, "fault",
      "faults are injected into the streaming combine; the phased and flat designs have no rings");
  return std::make_unique<LayerRun>(rs, designEntry(design).impl, fault);
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
