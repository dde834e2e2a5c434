// The real-operator limit checks: each table entry for the scenario's product whose operator
// the scenario calls, with the communication algorithm its designs correspond to, checked
// limit by limit against the scenario's shape.

#include "core/plan/real_operator_limits.h"

#include <algorithm>

namespace moe {
namespace {

// A scenario quantity as the operators see it, and the scenario field it comes from.
struct Quantity {
  std::int64_t value = 0;
  std::string text;  // dispatch_dtype only
  std::string field;
};

std::string dtypeName(DispatchDtype d) {
  switch (d) {
    case DispatchDtype::Bf16:
      return "bf16";
    case DispatchDtype::Fp8:
      return "fp8";
    case DispatchDtype::Int8:
      return "int8";
  }
  return "?";
}

// The real dispatch's moeExpertNum counts expert instances: after MoeUpdateExpert the ids it
// routes are instance ids, place_per_rank of them on every rank.
std::string instanceField(const Scenario& sc) {
  if (sc.eplb.placePerRank > 0) return "eplb.place_per_rank";
  if (sc.eplb.redundantExperts > 0) return "model.experts + eplb.redundant_experts";
  return "model.experts";
}

Quantity quantity(const Scenario& sc, const std::string& name) {
  const std::int64_t ranks = sc.cluster.ranks();
  if (name == "bs") return {sc.model.tokensPerRank, "", "model.tokens_per_rank"};
  if (name == "hidden") return {sc.model.hidden, "", "model.hidden"};
  if (name == "topk") return {sc.model.topk, "", "model.topk"};
  if (name == "ep_world_size") return {ranks, "", "cluster.servers x cluster.cards_per_server"};
  if (name == "server_num") return {sc.cluster.servers, "", "cluster.servers"};
  if (name == "moe_expert_num") return {sc.placePerRank() * ranks, "", instanceField(sc)};
  if (name == "logical_experts") return {sc.model.experts, "", "model.experts"};
  if (name == "dispatch_dtype")
    return {0, dtypeName(sc.model.dispatchDtype), "model.dispatch_dtype"};
  return {sc.combine.sharedExpert ? 1 : 0, "", "combine.shared_expert"};  // shared_expert
}

// The eplb field that makes the layer remap experts (so a real deployment would call
// MoeUpdateExpert); "" for the identity mapping, which needs no remapping.
std::string remapField(const Scenario& sc) {
  if (!sc.eplb.table.empty()) return "eplb.table";
  if (sc.eplb.tableFrom != EplbTableSource::Explicit) return "eplb.table_from";
  if (sc.eplb.redundantExperts > 0) return "eplb.redundant_experts";
  if (!sc.eplb.pruningThreshold.empty()) return "eplb.pruning_threshold";
  return "";
}

// The scenario field that makes the layer call op, or "" when it does not call it.
std::string callingField(const Scenario& sc, const std::string& op) {
  if (op == "MoeDistributeDispatchV2") return "model";
  if (op == "MoeDistributeCombineV2") return sc.combine.addRmsNorm ? "" : "combine";
  if (op == "MoeDistributeCombineAddRmsNorm")
    return sc.combine.addRmsNorm ? "combine.add_rms_norm" : "";
  return remapField(sc);  // MoeUpdateExpert
}

std::string joinInts(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

std::string joinWords(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i == 0 ? "" : i + 1 == v.size() ? " or " : ", ") + v[i];
  return s;
}

// What the limit accepts, in words ("BS <= 256"), or "" when the quantity meets it.
std::string breach(const OperatorLimit& l, const Quantity& q) {
  const std::int64_t v = q.value;
  if (l.min && l.max && (v < *l.min || v > *l.max))
    return l.label + " in [" + std::to_string(*l.min) + ", " + std::to_string(*l.max) + "]";
  if (l.max && !l.min && v > *l.max) return l.label + " <= " + std::to_string(*l.max);
  if (l.min && !l.max && v < *l.min) return l.label + " >= " + std::to_string(*l.min);
  if (l.multipleOf && v % *l.multipleOf != 0)
    return l.label + " a multiple of " + std::to_string(*l.multipleOf);
  if (!l.oneOf.empty() && std::find(l.oneOf.begin(), l.oneOf.end(), v) == l.oneOf.end())
    return l.label + " one of " + joinInts(l.oneOf);
  if (!l.values.empty() && std::find(l.values.begin(), l.values.end(), q.text) == l.values.end())
    return l.label + " " + joinWords(l.values);
  return "";
}

std::string operatorName(const OperatorEntry& e) {
  return "the real " + e.op + " on " + e.product +
         (e.commAlg.empty() ? "" : " (commAlg " + e.commAlg + ")");
}

void checkEntry(const Scenario& sc, const OperatorEntry& e, const std::string& callField,
                std::vector<LimitWarning>& out) {
  if (!e.supported) {
    out.push_back({callField, "the real " + e.op + " is not documented for " + e.product +
                                  "; this scenario calls it"});
    return;
  }
  for (const OperatorLimit& l : e.limits) {
    if (l.multiServerOnly && sc.cluster.servers <= 1) continue;
    const Quantity q = quantity(sc, l.quantity);
    if (l.allowed) {
      if (*l.allowed || q.value == 0) continue;
      out.push_back(
          {q.field, operatorName(e) + " does not support " + l.label + "; this scenario has one"});
      continue;
    }
    const std::string accepts = breach(l, q);
    if (accepts.empty()) continue;
    const std::string has = q.text.empty() ? std::to_string(q.value) : q.text;
    out.push_back(
        {q.field, operatorName(e) + " accepts " + accepts + "; this scenario has " + has});
  }
}

}  // namespace

std::vector<std::string> commAlgsFor(const DesignSelection& designs) {
  std::vector<std::string> algs;
  for (Design d : designs.designs()) {
    const std::string alg(designInfo(d).commAlg);
    if (!alg.empty() && std::find(algs.begin(), algs.end(), alg) == algs.end()) algs.push_back(alg);
  }
  return algs;
}

bool entryApplies(const Scenario& sc, const OperatorEntry& e) {
  if (sc.workload.kind != WorkloadKind::MoeLayer || e.product != sc.hardware.product) return false;
  if (callingField(sc, e.op).empty()) return false;
  if (e.commAlg.empty()) return true;
  const auto algs = commAlgsFor(sc.dispatchImpl);
  return std::find(algs.begin(), algs.end(), e.commAlg) != algs.end();
}

std::vector<LimitWarning> realOperatorWarnings(const Scenario& sc) {
  std::vector<LimitWarning> out;
  for (const OperatorEntry& e : realOperatorTable())
    if (entryApplies(sc, e)) checkEntry(sc, e, callingField(sc, e.op), out);
  return out;
}

}  // namespace moe
