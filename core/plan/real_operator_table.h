#pragma once
// The real CANN mc2 operators' documented limits per product (A2 = 910B, A3 = 910C die),
// parsed once from the embedded resources/operators/cann-mc2-limits.json. Each entry keeps the
// document it came from; what a document does not state is not in the table.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moe {

// One documented bound on one quantity of a scenario ("bs", "hidden", "topk",
// "ep_world_size", "server_num", "moe_expert_num", "logical_experts", "dispatch_dtype",
// "shared_expert"). Every bound that is set must hold.
struct OperatorLimit {
  std::string quantity;
  std::string label;  // the operator document's name for it ("BS", "epWorldSize")
  std::optional<std::int64_t> min;
  std::optional<std::int64_t> max;
  std::optional<std::int64_t> multipleOf;
  std::vector<std::int64_t> oneOf;  // empty: any
  std::vector<std::string> values;  // text quantities: the accepted values; empty: any
  std::optional<bool> allowed;      // boolean quantities: the one accepted value
  bool multiServerOnly = false;     // applies only when the cluster has more than one server
};

struct OperatorEntry {
  std::string op;       // "MoeDistributeDispatchV2"
  std::string product;  // "A2" or "A3"
  std::string commAlg;  // A2: "fullmesh" or "hierarchy"; "" when the product has no choice
  std::string source;
  bool supported = true;  // false: the document lists the product as not supported
  std::vector<OperatorLimit> limits;
  std::string buffsizeFormula;  // "a2-fullmesh", ...; "" when the document gives none
  std::string buffsizeText;     // the formula as the document states it
};

// The parsed table, in file order. A malformed table throws InputError naming the path.
const std::vector<OperatorEntry>& realOperatorTable();

// Parses a table document (the embedded one, or a test's).
std::vector<OperatorEntry> parseRealOperatorTable(const std::string& text);

}  // namespace moe
