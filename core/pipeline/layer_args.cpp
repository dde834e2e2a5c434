#include "core/pipeline/layer_args.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/util/error.h"

namespace moe {

std::pair<std::vector<std::int32_t>, int> scenarioTable(const Scenario& sc) {
  if (sc.eplb.tableFrom != EplbTableSource::Explicit)
    throw std::logic_error("scenarioTable: the table is generated; resolve the scenario first");
  if (sc.eplb.table.empty()) {
    std::vector<std::int32_t> t;
    for (int e = 0; e < sc.model.experts; ++e) t.insert(t.end(), {1, e});
    return {t, 2};
  }
  const int F = static_cast<int>(sc.eplb.table.front().size());
  std::vector<std::int32_t> t;
  for (const auto& row : sc.eplb.table) t.insert(t.end(), row.begin(), row.end());
  return {t, F};
}

UpdateExpertArgs updateExpertArgs(const Scenario& sc, const RankGating& g, int rank) {
  UpdateExpertArgs a;
  a.bs = sc.model.tokensPerRank;
  a.k = sc.model.topk;
  a.expertIds = g.topkIds;
  a.numExperts = sc.model.experts;
  std::tie(a.eplbTable, a.tableCols) = scenarioTable(sc);
  a.localRankId = rank;
  a.worldSize = sc.cluster.ranks();
  a.balanceMode = sc.eplb.balanceMode;
  if (!sc.eplb.pruningThreshold.empty()) {
    a.expertScales = g.topkWeights;
    a.pruningThreshold = sc.eplb.pruningThreshold;
    const int active = sc.eplb.activeTokens < 0 ? a.bs : sc.eplb.activeTokens;
    std::vector<std::uint8_t> m(a.bs, 0);
    std::fill(m.begin(), m.begin() + active, 1);
    a.activeMask = m;
  }
  return a;
}

int scenarioPlacePerRank(const Scenario& sc) {
  // Instances per rank depend only on the table; any valid ids (distinct per token, in
  // range) let MoeUpdateExpert's validator check it.
  RankGating probe;
  probe.topkIds.resize(static_cast<std::size_t>(sc.model.tokensPerRank) * sc.model.topk);
  for (std::size_t i = 0; i < probe.topkIds.size(); ++i)
    probe.topkIds[i] = static_cast<std::int32_t>(i % static_cast<std::size_t>(sc.model.topk));
  probe.topkWeights.assign(probe.topkIds.size(), 1.0f);
  const UpdateExpertArgs args = updateExpertArgs(sc, probe, 0);
  validateUpdateExpert(args, "eplb");
  const int P = updateExpertPlacePerRank(args);
  require(sc.eplb.placePerRank == 0 || sc.eplb.placePerRank == P, "eplb.place_per_rank",
          "must match the table's " + std::to_string(P) + " instances per rank");
  const int slots = sc.model.experts + sc.eplb.redundantExperts;
  require(sc.eplb.redundantExperts == 0 || P * sc.cluster.ranks() == slots,
          "eplb.redundant_experts",
          "the table has " + std::to_string(P * sc.cluster.ranks()) +
              " instances, but experts + redundant_experts = " + std::to_string(slots));
  return P;
}

}  // namespace moe
