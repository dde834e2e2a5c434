#include "core/scenario/scenario_enums.h"

namespace moe {

namespace {

template <typename E, std::size_t N>
std::vector<std::string> spellings(const EnumName<E> (&names)[N]) {
  std::vector<std::string> out;
  for (const auto& n : names) out.emplace_back(n.name);
  return out;
}

template <typename E, std::size_t N>
std::optional<E> fromName(const EnumName<E> (&names)[N], std::string_view name) {
  for (const auto& n : names)
    if (name == n.name) return n.value;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> enumSpellings(std::string_view path) {
  if (path == "routing.distribution") return spellings(kRoutingNames);
  if (path == "payload") return spellings(kPayloadNames);
  if (path == "dispatch_impl") return designSelectionSpellings();
  if (path == "model.dispatch_dtype") return spellings(kDtypeNames);
  if (path == "eplb.table_from") return spellings(kTableSourceNames);
  if (path == "combine.partial_dtype") return spellings(kPartialDtypeNames);
  if (path == "workload.kind") return spellings(kWorkloadNames);
  return {};
}

std::optional<WorkloadKind> workloadFromName(std::string_view name) {
  return fromName(kWorkloadNames, name);
}

std::string toString(RoutingKind k) {
  return enumName(kRoutingNames, k);
}
std::string toString(PayloadMode m) {
  return enumName(kPayloadNames, m);
}
std::string toString(DispatchDtype d) {
  return enumName(kDtypeNames, d);
}
std::string toString(EplbTableSource t) {
  return enumName(kTableSourceNames, t);
}
std::string toString(PartialDtype d) {
  return enumName(kPartialDtypeNames, d);
}

std::string toString(WorkloadKind w) {
  return enumName(kWorkloadNames, w);
}

}  // namespace moe
