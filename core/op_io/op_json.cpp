#include "core/op_io/op_json.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/op_io/op_dispatch_combine_json.h"
#include "core/plan/eplb.h"
#include "core/reference/layout.h"
#include "core/reference/update_expert.h"
#include "core/util/bf16.h"
#include "core/util/error.h"
#include "core/util/fp16.h"
#include "core/util/json_fields.h"

namespace moe {
namespace {

using nlohmann::json;
namespace jf = moe::jsonf;

constexpr std::int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// The JSON layer only checks that a value is representable; the operator's validate function
// owns the real rules, so the C++ API and the CLI refuse exactly the same inputs.
int int32Field(const json& obj, const char* key) {
  return static_cast<int>(jf::integer(jf::requiredMember(obj, "", key), key, kInt32Min, kInt32Max));
}

// Flattens a rectangular integer matrix to row-major int32; returns {rows, cols}.
std::pair<int, int> int32Matrix(const json& j, const std::string& path, std::size_t maxRows,
                                std::size_t maxCols, std::vector<int32_t>& flat) {
  const auto m = jf::intMatrix(j, path, maxRows, maxCols, kInt32Min, kInt32Max);
  flat.clear();
  for (const auto& row : m)
    for (std::int64_t v : row) flat.push_back(static_cast<int32_t>(v));
  return {static_cast<int>(m.size()), m.empty() ? 0 : static_cast<int>(m[0].size())};
}

// Warnings go to opt.warnings; under --strict the first one is an error instead.
void reportWarnings(const std::vector<UpdateExpertWarning>& warnings, const OpOptions& opt) {
  for (const auto& w : warnings) {
    if (opt.strict)
      throw InputError(w.path, w.rule +
                                   " (the real operator accepts this, but the pipeline could "
                                   "not use it; refused by --strict)");
    if (opt.warnings)
      opt.warnings->push_back(w.path + ": " + w.rule +
                              " (accepted: the real operator does not check this; the "
                              "pipeline could not use this input)");
  }
}

// fp32 values: the range check keeps the double→float conversion defined.
float fp32(const json& j, const std::string& path) {
  require(j.is_number(), path, "must be a number");
  const double v = j.get<double>();
  require(std::isfinite(v) && std::fabs(v) <= FLT_MAX, path,
          "must be a finite fp32 value, got " + j.dump());
  return static_cast<float>(v);
}

// A value may be given plainly (the default dtype) or as {"dtype": NAME, "data": VALUE},
// as the real operator takes several dtypes for some arguments. Returns the data and sets
// *dtype; a dtype outside `allowed` is the real operator's [161002].
const json& typedValue(const json& in, const char* key, const std::vector<std::string>& allowed,
                       std::string* dtype) {
  const json& v = jf::requiredMember(in, "", key);
  *dtype = allowed.front();
  if (!v.is_object() || !v.contains("data")) return v;
  jf::rejectUnknownKeys(v, key, {"dtype", "data"});
  const std::string path = jf::child(key, "dtype");
  *dtype = jf::string(jf::requiredMember(v, key, "dtype"), path, 32);
  if (std::find(allowed.begin(), allowed.end(), *dtype) == allowed.end()) {
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    throw InputError(path, "[161002] must be one of " + list + ", got \"" + *dtype + "\"");
  }
  return v.at("data");
}

// A scale given in a 16-bit float dtype is what the device holds: the JSON number rounded
// to that dtype once, then widened exactly to fp32 for the computation.
float asDtype(float v, const std::string& dtype) {
  if (dtype == "bfloat16") return bf16ToFloat(floatToBf16(v));
  if (dtype == "float16") return fp16ToFloat(floatToFp16(v));
  return v;
}

// expert_scales: [BS][K] numbers in one of three dtypes, each rounded to that dtype once.
std::vector<float> updateExpertScales(const json& in, int bs, int k) {
  std::string dt;
  const json* s = &typedValue(in, "expert_scales", {"float32", "float16", "bfloat16"}, &dt);
  jf::array(*s, "expert_scales", kUpdateExpertMaxBs + 1);
  // The shape is checked here, per row, because flattening would hide a ragged matrix.
  require(s->size() == std::size_t(bs), "expert_scales",
          "must have as many rows as expert_ids (" + std::to_string(bs) + "), got " +
              std::to_string(s->size()));
  std::vector<float> flat;
  for (std::size_t t = 0; t < s->size(); ++t) {
    const std::string rp = jf::index("expert_scales", t);
    jf::array((*s)[t], rp, kUpdateExpertMaxK + 1);
    require((*s)[t].size() == std::size_t(k), rp,
            "must have as many entries as an expert_ids row (" + std::to_string(k) + "), got " +
                std::to_string((*s)[t].size()));
    for (std::size_t j = 0; j < (*s)[t].size(); ++j)
      flat.push_back(asDtype(fp32((*s)[t][j], jf::index(rp, j)), dt));
  }
  return flat;
}

// pruning_threshold: (K,) or (1, K) fp32 values, as the real operator takes it.
std::vector<float> updateExpertThreshold(const json& in) {
  std::string dt;
  const json* th = &typedValue(in, "pruning_threshold", {"float32"}, &dt);
  jf::array(*th, "pruning_threshold", kUpdateExpertMaxK + 1);
  // The real operator takes (K,) or (1, K).
  const json* row = th;
  std::string rowPath = "pruning_threshold";
  if (th->size() == 1 && (*th)[0].is_array()) {
    row = &(*th)[0];
    rowPath = jf::index("pruning_threshold", 0);
    jf::array(*row, rowPath, kUpdateExpertMaxK + 1);
  }
  std::vector<float> v;
  for (std::size_t j = 0; j < row->size(); ++j) v.push_back(fp32((*row)[j], jf::index(rowPath, j)));
  return v;
}

std::vector<uint8_t> updateExpertActiveMask(const json& in) {
  std::string dt;
  const json* am = &typedValue(in, "active_mask", {"bool"}, &dt);
  jf::array(*am, "active_mask", kUpdateExpertMaxBs + 1);
  std::vector<uint8_t> v;
  for (std::size_t t = 0; t < am->size(); ++t)
    v.push_back(jf::boolean((*am)[t], jf::index("active_mask", t)) ? 1 : 0);
  return v;
}

// The outputs as the real operator names them; [BS][K] matrices as nested arrays.
json updateExpertOutputs(const UpdateExpertArgs& a, const UpdateExpertResult& r) {
  json out = json::object();
  json ids = json::array();
  for (int t = 0; t < a.bs; ++t) {
    json row = json::array();
    for (int j = 0; j < a.k; ++j) row.push_back(r.balancedIds[std::size_t(t) * a.k + j]);
    ids.push_back(std::move(row));
  }
  out["balanced_expert_ids"] = std::move(ids);
  if (r.balancedActiveMask) {
    json mask = json::array();
    for (int t = 0; t < a.bs; ++t) {
      json row = json::array();
      for (int j = 0; j < a.k; ++j)
        row.push_back((*r.balancedActiveMask)[std::size_t(t) * a.k + j] != 0);
      mask.push_back(std::move(row));
    }
    out["balanced_active_mask"] = std::move(mask);
  }
  // Instances per rank are the pipeline's notion; a table it could not use has none.
  if (r.placePerRank > 0) out["place_per_rank"] = r.placePerRank;
  return out;
}

json updateExpert(const json& in, const OpOptions& opt) {
  jf::rejectUnknownKeys(in, "",
                        {"expert_ids", "eplb_table", "local_rank_id", "world_size", "balance_mode",
                         "expert_scales", "pruning_threshold", "active_mask"});
  UpdateExpertArgs a;
  std::string idsDtype;
  const json& idsJson = typedValue(in, "expert_ids", {"int32", "int64"}, &idsDtype);
  // Matrix bounds one past the operator limits: the operator's own rule then reports the
  // limit, while absurd sizes are refused before they are copied. int64 ids outside the
  // int32 range can never be a valid expert id, so they are refused here.
  const auto [bs, k] = int32Matrix(idsJson, "expert_ids", kUpdateExpertMaxBs + 1,
                                   kUpdateExpertMaxK + 1, a.expertIds);
  a.bs = bs;
  a.k = k;
  std::string tableDtype;
  const auto [rows, cols] =
      int32Matrix(typedValue(in, "eplb_table", {"int32"}, &tableDtype), "eplb_table",
                  kUpdateExpertMaxExperts + 1, kUpdateExpertMaxWorldSize + 2, a.eplbTable);
  a.numExperts = rows;
  a.tableCols = cols;
  a.localRankId = int32Field(in, "local_rank_id");
  a.worldSize = int32Field(in, "world_size");
  a.balanceMode = int32Field(in, "balance_mode");

  if (jf::member(in, "expert_scales")) a.expertScales = updateExpertScales(in, bs, k);
  if (jf::member(in, "pruning_threshold")) a.pruningThreshold = updateExpertThreshold(in);
  if (jf::member(in, "active_mask")) a.activeMask = updateExpertActiveMask(in);
  std::vector<UpdateExpertWarning> warnings;
  const UpdateExpertResult r = updateExpertReference(a, UpdateExpertRules::RealOperator, &warnings);
  reportWarnings(warnings, opt);
  return updateExpertOutputs(a, r);
}

json layout(const json& in) {
  jf::rejectUnknownKeys(in, "", {"topk_idx", "num_ranks", "num_experts", "ranks_per_server"});
  LayoutArgs a;
  const auto [t, k] = int32Matrix(jf::requiredMember(in, "", "topk_idx"), "topk_idx",
                                  kLayoutMaxTokens + 1, kLayoutMaxTopk + 1, a.topkIdx);
  a.numTokens = t;
  a.numTopk = k;
  a.numRanks = int32Field(in, "num_ranks");
  a.numExperts = int32Field(in, "num_experts");
  a.ranksPerServer = int32Field(in, "ranks_per_server");

  const LayoutResult r = layoutReference(a);
  json out = json::object();
  out["num_tokens_per_rank"] = r.numTokensPerRank;
  out["num_tokens_per_rdma_rank"] = r.numTokensPerRdmaRank;
  out["num_tokens_per_expert"] = r.numTokensPerExpert;
  json inRank = json::array();
  for (int i = 0; i < a.numTokens; ++i) {
    json row = json::array();
    for (int rank = 0; rank < a.numRanks; ++rank)
      row.push_back(r.isTokenInRank[std::size_t(i) * a.numRanks + rank] != 0);
    inRank.push_back(std::move(row));
  }
  out["is_token_in_rank"] = std::move(inRank);
  return out;
}

json eplb(const json& in) {
  jf::rejectUnknownKeys(
      in, "", {"weight", "num_replicas", "num_groups", "num_nodes", "num_gpus", "max_replicas"});
  EplbInput a;
  const json& w = jf::array(jf::requiredMember(in, "", "weight"), "weight", 4097);
  for (std::size_t l = 0; l < w.size(); ++l) {
    const std::string rp = jf::index("weight", l);
    const json& row = jf::array(w[l], rp, (1u << 14) + 1);
    std::vector<double> v;
    for (std::size_t e = 0; e < row.size(); ++e) {
      require(row[e].is_number(), jf::index(rp, e), "must be a number");
      v.push_back(row[e].get<double>());  // validateEplb checks finite and >= 0
    }
    a.weight.push_back(std::move(v));
  }
  a.numReplicas = int32Field(in, "num_replicas");
  a.numGroups = int32Field(in, "num_groups");
  a.numNodes = int32Field(in, "num_nodes");
  a.numGpus = int32Field(in, "num_gpus");
  if (jf::member(in, "max_replicas")) a.maxReplicas = int32Field(in, "max_replicas");

  const EplbResult r = rebalanceExperts(a);
  json out = json::object();
  out["phy2log"] = r.phy2log;
  out["log2phy"] = r.log2phy;
  out["logcnt"] = r.logcnt;
  return out;
}

}  // namespace

const std::vector<std::string>& opNames() {
  static const std::vector<std::string> names{"update-expert", "layout", "eplb", "dispatch",
                                              "combine"};
  return names;
}

json runOpJson(const std::string& name, const json& input, const OpOptions& options) {
  const auto& names = opNames();
  if (std::find(names.begin(), names.end(), name) != names.end()) jf::object(input, "");
  if (name == "dispatch") return dispatchOpJson(input);
  if (name == "combine") return combineOpJson(input);
  if (name == "update-expert") return updateExpert(input, options);
  if (name == "eplb") return eplb(input);
  if (name == "layout") return layout(input);
  std::string known;
  for (const auto& n : opNames()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("op", "unknown operator \"" + name + "\"; known: " + known);
}

}  // namespace moe
