#include "core/run/design.h"

#include <array>
#include <utility>

namespace moe {

namespace {
constexpr std::array<std::pair<Design, std::string_view>, 5> kNames = {{
    {Design::Phased, "phased"},
    {Design::Streaming, "streaming"},
    {Design::Flat, "flat"},
    {Design::Pipelined, "pipelined"},
    {Design::Sequential, "sequential"},
}};
}  // namespace

std::string_view designName(Design d) {
  for (const auto& [design, name] : kNames)
    if (design == d) return name;
  return "unknown";
}

std::optional<Design> designFromName(std::string_view name) {
  for (const auto& [design, n] : kNames)
    if (n == name) return design;
  return std::nullopt;
}

WorkloadKind workloadOf(Design d) {
  return d == Design::Pipelined || d == Design::Sequential ? WorkloadKind::AlltoallMatmulRs
                                                           : WorkloadKind::MoeLayer;
}

std::vector<Design> designsOf(WorkloadKind w) {
  if (w == WorkloadKind::AlltoallMatmulRs) return {Design::Pipelined, Design::Sequential};
  return {Design::Phased, Design::Streaming, Design::Flat};
}

Design defaultDesign(WorkloadKind w) {
  return w == WorkloadKind::AlltoallMatmulRs ? Design::Pipelined : Design::Streaming;
}

std::vector<Design> scenarioDesigns(const Scenario& sc) {
  if (sc.workload.kind == WorkloadKind::AlltoallMatmulRs) return designsOf(sc.workload.kind);
  switch (sc.dispatchImpl) {
    case DispatchImpl::Phased:
      return {Design::Phased};
    case DispatchImpl::Streaming:
      return {Design::Streaming};
    case DispatchImpl::Flat:
      return {Design::Flat};
    case DispatchImpl::All:
      return {Design::Phased, Design::Streaming, Design::Flat};
    case DispatchImpl::Both:
      break;
  }
  return {Design::Phased, Design::Streaming};
}

}  // namespace moe
