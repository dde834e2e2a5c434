#pragma once
// The JSON spellings of the scenario's enumerated fields, in one table per enum: the reader,
// the writer, the CLI's choices, the Python module and the workbench's editor all take them
// from here. (dispatch_impl's spellings come from the design table, design_table.h.)

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

inline constexpr EnumName<RoutingKind> kRoutingNames[] = {
    {RoutingKind::Uniform, "uniform"},
    {RoutingKind::PowerLaw, "power-law"},
    {RoutingKind::Hotspot, "hotspot"},
    {RoutingKind::GroupLimited, "group-limited"},
    {RoutingKind::Trace, "trace"}};
inline constexpr EnumName<PayloadMode> kPayloadNames[] = {{PayloadMode::Full, "full"},
                                                          {PayloadMode::None, "none"}};
inline constexpr EnumName<DispatchDtype> kDtypeNames[] = {
    {DispatchDtype::Bf16, "bf16"}, {DispatchDtype::Fp8, "fp8"}, {DispatchDtype::Int8, "int8"}};
inline constexpr EnumName<EplbTableSource> kTableSourceNames[] = {
    {EplbTableSource::Explicit, "explicit"},
    {EplbTableSource::ExpectedLoad, "expected-load"},
    {EplbTableSource::WarmUp, "warm-up"}};
inline constexpr EnumName<PartialDtype> kPartialDtypeNames[] = {{PartialDtype::Fp32, "fp32"},
                                                                {PartialDtype::Bf16, "bf16"}};
inline constexpr EnumName<WorkloadKind> kWorkloadNames[] = {
    {WorkloadKind::MoeLayer, "moe-layer"}, {WorkloadKind::AlltoallMatmulRs, "alltoall-matmul-rs"}};

// The spellings of the enumerated field at this JSON path ("dispatch_impl",
// "routing.distribution", ...), in the order listings show them; empty for any other field.
std::vector<std::string> enumSpellings(std::string_view path);

// The value spelled `name`, or nothing.
std::optional<WorkloadKind> workloadFromName(std::string_view name);

template <typename E, std::size_t N>
std::string enumName(const EnumName<E> (&names)[N], E v) {
  for (const auto& n : names)
    if (n.value == v) return n.name;
  return "?";
}

// Enum spellings used in JSON.
std::string toString(RoutingKind k);
std::string toString(PayloadMode m);
std::string toString(DispatchDtype d);
std::string toString(WorkloadKind w);
std::string toString(EplbTableSource t);
std::string toString(PartialDtype d);

}  // namespace moe
