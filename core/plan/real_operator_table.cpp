// Parsing of resources/operators/cann-mc2-limits.json with field paths, so an edit that
// breaks the table fails loudly (and in the tests) instead of silently dropping a limit.

#include "core/plan/real_operator_table.h"

#include <nlohmann/json.hpp>

#include "core/util/embedded_resources.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"

namespace moe {
namespace {

using nlohmann::json;

constexpr const char* kTableFile = "operators/cann-mc2-limits.json";
constexpr std::int64_t kBig = std::int64_t{1} << 40;

std::optional<std::int64_t> optionalInteger(const json& obj, const std::string& path,
                                            std::string_view key) {
  const json* m = jsonf::member(obj, key);
  if (m == nullptr) return std::nullopt;
  return jsonf::integer(*m, jsonf::child(path, key), -kBig, kBig);
}

OperatorLimit parseLimit(const json& j, const std::string& path) {
  jsonf::object(j, path);
  jsonf::rejectUnknownKeys(j, path,
                           {"quantity", "label", "min", "max", "multiple_of", "one_of", "values",
                            "allowed", "multi_server_only"});
  OperatorLimit l;
  l.quantity =
      jsonf::oneOf(jsonf::requiredMember(j, path, "quantity"), jsonf::child(path, "quantity"),
                   {"bs", "hidden", "topk", "ep_world_size", "server_num", "moe_expert_num",
                    "logical_experts", "dispatch_dtype", "shared_expert"});
  l.label = jsonf::string(jsonf::requiredMember(j, path, "label"), jsonf::child(path, "label"));
  l.min = optionalInteger(j, path, "min");
  l.max = optionalInteger(j, path, "max");
  l.multipleOf = optionalInteger(j, path, "multiple_of");
  if (l.multipleOf) require(*l.multipleOf > 0, jsonf::child(path, "multiple_of"), "must be > 0");
  if (const json* a = jsonf::member(j, "one_of")) {
    const std::string ap = jsonf::child(path, "one_of");
    jsonf::array(*a, ap, 64);
    for (std::size_t i = 0; i < a->size(); ++i)
      l.oneOf.push_back(jsonf::integer((*a)[i], jsonf::index(ap, i), -kBig, kBig));
  }
  if (const json* a = jsonf::member(j, "values")) {
    const std::string ap = jsonf::child(path, "values");
    jsonf::array(*a, ap, 64);
    for (std::size_t i = 0; i < a->size(); ++i)
      l.values.push_back(jsonf::string((*a)[i], jsonf::index(ap, i)));
  }
  if (const json* b = jsonf::member(j, "allowed"))
    l.allowed = jsonf::boolean(*b, jsonf::child(path, "allowed"));
  if (const json* b = jsonf::member(j, "multi_server_only"))
    l.multiServerOnly = jsonf::boolean(*b, jsonf::child(path, "multi_server_only"));
  return l;
}

OperatorEntry parseEntry(const json& j, const std::string& path) {
  jsonf::object(j, path);
  jsonf::rejectUnknownKeys(
      j, path,
      {"operator", "product", "comm_alg", "source", "supported", "limits", "hccl_buffsize"});
  OperatorEntry e;
  e.op = jsonf::oneOf(jsonf::requiredMember(j, path, "operator"), jsonf::child(path, "operator"),
                      {"MoeDistributeDispatchV2", "MoeDistributeCombineV2",
                       "MoeDistributeCombineAddRmsNorm", "MoeUpdateExpert"});
  e.product = jsonf::oneOf(jsonf::requiredMember(j, path, "product"), jsonf::child(path, "product"),
                           {"A2", "A3"});
  if (const json* c = jsonf::member(j, "comm_alg"))
    e.commAlg = jsonf::oneOf(*c, jsonf::child(path, "comm_alg"), {"fullmesh", "hierarchy"});
  e.source = jsonf::string(jsonf::requiredMember(j, path, "source"), jsonf::child(path, "source"));
  require(!e.source.empty(), jsonf::child(path, "source"), "must name the document");
  if (const json* s = jsonf::member(j, "supported"))
    e.supported = jsonf::boolean(*s, jsonf::child(path, "supported"));
  if (const json* ls = jsonf::member(j, "limits")) {
    const std::string lp = jsonf::child(path, "limits");
    jsonf::array(*ls, lp, 64);
    for (std::size_t i = 0; i < ls->size(); ++i)
      e.limits.push_back(parseLimit((*ls)[i], jsonf::index(lp, i)));
  }
  if (const json* h = jsonf::member(j, "hccl_buffsize")) {
    const std::string hp = jsonf::child(path, "hccl_buffsize");
    jsonf::object(*h, hp);
    e.buffsizeFormula = jsonf::oneOf(
        jsonf::requiredMember(*h, hp, "formula"), jsonf::child(hp, "formula"),
        {"a2-fullmesh", "a2-hierarchy", "a3-dispatch", "a3-combine", "a3-combine-add-rms-norm"});
    e.buffsizeText = jsonf::string(jsonf::requiredMember(*h, hp, "text"), jsonf::child(hp, "text"));
  }
  return e;
}

}  // namespace

std::vector<OperatorEntry> parseRealOperatorTable(const std::string& text) {
  const json doc = json::parse(text, nullptr, false);
  require(!doc.is_discarded(), kTableFile, "is not valid JSON");
  const json& entries = jsonf::array(jsonf::requiredMember(doc, "", "entries"), "entries", 256);
  std::vector<OperatorEntry> table;
  for (std::size_t i = 0; i < entries.size(); ++i)
    table.push_back(parseEntry(entries[i], jsonf::index("entries", i)));
  return table;
}

const std::vector<OperatorEntry>& realOperatorTable() {
  static const std::vector<OperatorEntry> table = [] {
    const auto text = embeddedFile(kTableFile);
    require(text.has_value(), kTableFile, "is missing from the embedded resources");
    return parseRealOperatorTable(std::string(*text));
  }();
  return table;
}

}  // namespace moe
