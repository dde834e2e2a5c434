#include "core/run/layer_args.h"

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
  return updateExpertArgs(sc, g, rank, 0, sc.model.tokensPerRank);
}

UpdateExpertArgs updateExpertArgs(const Scenario& sc, const RankGating& g, int rank, int tokenBegin,
                                  int tokenEnd) {
  if (tokenBegin < 0 || tokenEnd > sc.model.tokensPerRank || tokenBegin >= tokenEnd)
    throw std::logic_error("updateExpertArgs: token slice outside the batch");
  const std::size_t K = static_cast<std::size_t>(sc.model.topk);
  const auto first = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(tokenBegin) * K);
  const auto last = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(tokenEnd) * K);
  UpdateExpertArgs a;
  a.bs = tokenEnd - tokenBegin;
  a.k = sc.model.topk;
  a.expertIds.assign(g.topkIds.begin() + first, g.topkIds.begin() + last);
  a.numExperts = sc.model.experts;
  std::tie(a.eplbTable, a.tableCols) = scenarioTable(sc);
  a.localRankId = rank;
  a.worldSize = sc.cluster.ranks();
  a.balanceMode = sc.eplb.balanceMode;
  if (!sc.eplb.pruningThreshold.empty()) {
    a.expertScales.emplace(g.topkWeights.begin() + first, g.topkWeights.begin() + last);
    a.pruningThreshold = sc.eplb.pruningThreshold;
    // The batch's active tokens are a prefix; a slice holds its part of that prefix.
    const int active = sc.eplb.activeTokens < 0 ? sc.model.tokensPerRank : sc.eplb.activeTokens;
    std::vector<std::uint8_t> m(static_cast<std::size_t>(a.bs), 0);
    for (int t = tokenBegin; t < tokenEnd && t < active; ++t) m[t - tokenBegin] = 1;
    a.activeMask = m;
  }
  return a;
}

std::vector<TokenSlice> updateExpertSlices(int tokensPerRank) {
  std::vector<TokenSlice> slices;
  for (int b = 0; b < tokensPerRank; b += kUpdateExpertMaxBs)
    slices.push_back({b, std::min(tokensPerRank, b + kUpdateExpertMaxBs)});
  return slices;
}

UpdateExpertResult layerUpdateExpert(const Scenario& sc, const RankGating& g, int rank) {
  UpdateExpertResult all;
  for (const TokenSlice& s : updateExpertSlices(sc.model.tokensPerRank)) {
    UpdateExpertResult part = updateExpertReference(updateExpertArgs(sc, g, rank, s.begin, s.end));
    all.placePerRank = part.placePerRank;
    all.balancedIds.insert(all.balancedIds.end(), part.balancedIds.begin(), part.balancedIds.end());
    if (part.balancedActiveMask) {
      if (!all.balancedActiveMask) all.balancedActiveMask.emplace();
      all.balancedActiveMask->insert(all.balancedActiveMask->end(),
                                     part.balancedActiveMask->begin(),
                                     part.balancedActiveMask->end());
    }
  }
  return all;
}

namespace {

// MoeUpdateExpert's validator names its own arguments; a scenario's user knows the scenario
// fields they come from. The index suffix ("[3][0]") is kept where the shapes agree.
std::string scenarioFieldOfUpdateExpertArg(const std::string& path) {
  const std::size_t bracket = path.find('[');
  const std::string arg = path.substr(0, bracket);
  const std::string index = bracket == std::string::npos ? "" : path.substr(bracket);
  if (arg == "eplb_table") return "eplb.table" + index;
  if (arg == "pruning_threshold") return "eplb.pruning_threshold" + index;
  if (arg == "balance_mode") return "eplb.balance_mode";
  if (arg == "active_mask") return "eplb.active_tokens";
  if (arg == "world_size" || arg == "local_rank_id") return "cluster";
  if (arg == "expert_ids") return "model.topk";  // the probe's ids: only K vs E can fail
  return "eplb";
}

}  // namespace

int scenarioPlacePerRank(const Scenario& sc) {
  // Instances per rank depend only on the table; any valid ids (distinct per token, in
  // range) let MoeUpdateExpert's validator check it.
  // (The first slice's worth of tokens: the table is the same for every slice.)
  RankGating probe;
  probe.topkIds.resize(static_cast<std::size_t>(sc.model.tokensPerRank) * sc.model.topk);
  for (std::size_t i = 0; i < probe.topkIds.size(); ++i)
    probe.topkIds[i] = static_cast<std::int32_t>(i % static_cast<std::size_t>(sc.model.topk));
  probe.topkWeights.assign(probe.topkIds.size(), 1.0f);
  const UpdateExpertArgs args =
      updateExpertArgs(sc, probe, 0, 0, std::min(sc.model.tokensPerRank, kUpdateExpertMaxBs));
  try {
    validateUpdateExpert(args);
  } catch (const InputError& e) {
    throw InputError(scenarioFieldOfUpdateExpertArg(e.path()), e.rule());
  }
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
