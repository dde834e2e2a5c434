#include "core/run/design.h"

#include "core/run/design_registry.h"

namespace moe {

std::string_view designName(Design d) {
  return designEntry(d).name;
}

std::optional<Design> designFromName(std::string_view name) {
  for (const DesignEntry& e : designRegistry())
    if (e.name == name) return e.design;
  return std::nullopt;
}

WorkloadKind workloadOf(Design d) {
  return designEntry(d).workload;
}

std::vector<Design> designsOf(WorkloadKind w) {
  std::vector<Design> out;
  for (const DesignEntry& e : designRegistry())
    if (e.workload == w) out.push_back(e.design);
  return out;
}

Design defaultDesign(WorkloadKind w) {
  return w == WorkloadKind::AlltoallMatmulRs ? Design::Pipelined : Design::Streaming;
}

std::vector<Design> scenarioDesigns(const Scenario& sc) {
  if (sc.workload.kind == WorkloadKind::AlltoallMatmulRs) return designsOf(sc.workload.kind);
  if (sc.dispatchImpl == DispatchImpl::All) return designsOf(WorkloadKind::MoeLayer);
  if (sc.dispatchImpl == DispatchImpl::Both) return {Design::Phased, Design::Streaming};
  for (const DesignEntry& e : designRegistry())
    if (e.workload == WorkloadKind::MoeLayer && e.impl == sc.dispatchImpl) return {e.design};
  return {Design::Phased, Design::Streaming};
}

}  // namespace moe
