#include "core/run/reference_chain.h"

#include "core/run/layer_args.h"

namespace moe {

ReferenceLayer computeReference(const ResolvedScenario& rs) {
  return computeReference(rs.scenario(), rs.gating());
}

ReferenceLayer computeReference(const Scenario& sc,
                                std::shared_ptr<const std::vector<RankGating>> gatingPtr) {
  ReferenceLayer ref;
  ref.gating = gatingPtr;
  const std::vector<RankGating>& gating = *gatingPtr;
  const int R = sc.cluster.ranks(), K = sc.model.topk, BS = sc.model.tokensPerRank;
  std::vector<DispatchSource> sources(R);
  int P = 0;
  for (int r = 0; r < R; ++r) {
    ref.updateExpert.push_back(layerUpdateExpert(sc, gating[r], r));
    const auto& ue = ref.updateExpert.back();
    P = ue.placePerRank;
    DispatchSource& s = sources[r];
    s.ids = ue.balancedIds;
    s.weights = gating[r].topkWeights;
    s.mask = ue.balancedActiveMask.value_or(
        std::vector<std::uint8_t>(static_cast<std::size_t>(BS) * K, 1));
    LayoutArgs la;
    la.numTokens = BS;
    la.numTopk = K;
    la.topkIdx = s.ids;
    for (std::size_t i = 0; i < la.topkIdx.size(); ++i)
      if (!s.mask[i]) la.topkIdx[i] = -1;
    la.numRanks = R;
    la.numExperts = R * P;
    la.ranksPerServer = sc.cluster.cardsPerServer;
    ref.layout.push_back(layoutReference(la));
  }
  ref.dispatch = dispatchReference(DispatchShape{R, BS, sc.model.hidden, K, P}, sources, false);
  return ref;
}

}  // namespace moe
