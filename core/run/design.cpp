#include "core/run/design.h"

namespace moe {

std::vector<Design> scenarioDesigns(const Scenario& sc) {
  if (sc.workload.kind == WorkloadKind::AlltoallMatmulRs) return designsOf(sc.workload.kind);
  return sc.dispatchImpl.designs();
}

}  // namespace moe
