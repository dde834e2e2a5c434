#include "core/run/expert_balance.h"

#include <algorithm>

#include "core/reference/update_expert.h"
#include "core/run/layer_args.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

namespace moe {

std::vector<double> eplbLoad(const Scenario& sc) {
  switch (sc.eplb.tableFrom) {
    case EplbTableSource::ExpectedLoad: {
      std::vector<double> w = expectedExpertLoad(sc);
      const double slots =
          static_cast<double>(sc.cluster.ranks()) * sc.model.tokensPerRank * sc.model.topk;
      for (double& v : w) v *= slots;
      return w;
    }
    case EplbTableSource::WarmUp:
      return warmupExpertLoad(sc);
    case EplbTableSource::Explicit:
      break;
  }
  throw InputError("eplb.table_from", "is \"explicit\": there is no load to generate a table from");
}

EplbPlan planEplb(const Scenario& sc, const std::vector<double>& weight) {
  const int R = sc.cluster.ranks();
  const int slots = sc.model.experts + sc.eplb.redundantExperts;
  EplbPlan plan;
  try {
    plan.placement =
        placeExperts(weight, slots, sc.eplb.groups, sc.cluster.servers, R, /*maxReplicas=*/R);
  } catch (const InputError& e) {
    // EPLB's own field names, in the scenario's terms.
    const std::string& p = e.path();
    if (p == "max_replicas")
      throw InputError("eplb.redundant_experts",
                       "too many: MoeUpdateExpert allows at most world_size (" + std::to_string(R) +
                           ") instances per expert, so " + std::to_string(sc.model.experts) +
                           " experts fill at most " +
                           std::to_string(static_cast<long long>(R) * sc.model.experts) +
                           " slots, got " + std::to_string(slots));
    const std::string field = p == "num_groups"           ? "eplb.groups"
                              : p.rfind("weight", 0) == 0 ? "eplb.table_from"
                                                          : "eplb.redundant_experts";
    throw InputError(field, "EPLB: " + p + ": " + e.rule());
  }
  plan.table = toUpdateExpertTable(plan.placement.phy2log, sc.model.experts, R);
  return plan;
}

Scenario withEplbTable(const Scenario& sc) {
  if (sc.eplb.tableFrom == EplbTableSource::Explicit) return sc;
  const EplbPlan plan = planEplb(sc, eplbLoad(sc));
  Scenario out = sc;
  out.eplb.table = plan.table.rows;
  out.eplb.tableFrom = EplbTableSource::Explicit;
  return out;
}

Scenario rebalancedScenario(const Scenario& sc, const std::vector<double>& weight,
                            int redundantExperts) {
  Scenario out = sc;
  out.eplb.redundantExperts = redundantExperts;
  out.eplb.placePerRank = 0;
  out.eplb.table.clear();
  // Checked as a generating scenario (slot count divisible by the ranks, groups), then the
  // table is stored explicitly so a saved scenario replays this exact placement.
  out.eplb.tableFrom = EplbTableSource::WarmUp;
  validateScenario(out);
  out.eplb.table = planEplb(out, weight).table.rows;
  out.eplb.tableFrom = EplbTableSource::Explicit;
  return out;
}

std::vector<int> instanceToLogical(const Scenario& sc, int instances) {
  std::vector<int> logical(static_cast<std::size_t>(instances), -1);
  const auto [table, F] = scenarioTable(sc);
  for (int e = 0; e < sc.model.experts; ++e) {
    const std::int32_t* row = &table[static_cast<std::size_t>(e) * F];
    for (int c = 1; c <= row[0]; ++c)
      if (row[c] >= 0 && row[c] < instances) logical[static_cast<std::size_t>(row[c])] = e;
  }
  return logical;
}

double imbalance(const std::vector<double>& v) {
  // maxOverMean, except that no load at all reads 0 (nothing to show), not 1.
  const bool noLoad = std::none_of(v.begin(), v.end(), [](double x) { return x > 0; });
  return noLoad ? 0 : maxOverMean(v);
}

ExpertLoad computeExpertLoad(const ResolvedScenario& rs) {
  const Scenario& sc = rs.scenario();
  const std::vector<RankGating>& gating = *rs.gating();
  ExpertLoad L;
  const int R = sc.cluster.ranks();
  const int E = sc.model.experts;
  const int P = scenarioPlacePerRank(sc);
  const int instances = P * R;
  L.placePerRank = P;
  L.redundantExperts = instances - E;
  L.instanceLogical = instanceToLogical(sc, instances);
  if (sc.eplb.table.empty()) {
    for (int e = 0; e < E; ++e) L.table.push_back({1, e});
  } else {
    L.table = sc.eplb.table;
  }
  L.perExpert.assign(static_cast<std::size_t>(E), 0);
  L.perInstanceBefore.assign(static_cast<std::size_t>(instances), 0);
  L.perInstanceAfter.assign(static_cast<std::size_t>(instances), 0);
  L.perRankBefore.assign(static_cast<std::size_t>(R), 0);
  L.perRankAfter.assign(static_cast<std::size_t>(R), 0);
  for (int r = 0; r < R && r < static_cast<int>(gating.size()); ++r) {
    for (std::int32_t e : gating[static_cast<std::size_t>(r)].topkIds) {
      L.perExpert[static_cast<std::size_t>(e)] += 1;
      L.perInstanceBefore[static_cast<std::size_t>(e)] += 1;
      L.perRankBefore[static_cast<std::size_t>(identityCard(e, E, R))] += 1;
    }
    const UpdateExpertResult ue = layerUpdateExpert(sc, gating[static_cast<std::size_t>(r)], r);
    for (std::size_t i = 0; i < ue.balancedIds.size(); ++i) {
      if (ue.balancedActiveMask && !(*ue.balancedActiveMask)[i]) continue;  // pruned slot
      const std::int32_t inst = ue.balancedIds[i];
      if (inst < 0 || inst >= instances) continue;
      L.perInstanceAfter[static_cast<std::size_t>(inst)] += 1;
      L.perRankAfter[static_cast<std::size_t>(inst / P)] += 1;
    }
  }
  for (int inst = 0; inst < instances; ++inst) {
    const int e = L.instanceLogical[static_cast<std::size_t>(inst)];
    if (e >= 0 && L.table[static_cast<std::size_t>(e)][0] > 1 &&
        L.perExpert[static_cast<std::size_t>(e)] > 0 &&
        L.perInstanceAfter[static_cast<std::size_t>(inst)] == 0)
      ++L.idleReplicas;
  }
  return L;
}

}  // namespace moe
