#include "ui/run/expert_load.h"

#include <algorithm>
#include <numeric>

#include "core/ops/update_expert.h"
#include "core/pipeline/layer_run.h"

namespace moe::ui {

double imbalance(const std::vector<double>& v) {
  if (v.empty()) return 0;
  const double sum = std::accumulate(v.begin(), v.end(), 0.0);
  if (sum <= 0) return 0;
  return *std::max_element(v.begin(), v.end()) / (sum / static_cast<double>(v.size()));
}

ExpertLoad computeExpertLoad(const Scenario& sc, const std::vector<RankGating>& gating) {
  ExpertLoad L;
  const int R = sc.cluster.ranks();
  const int P = sc.placePerRank();
  const int instances = P * R;
  L.placePerRank = P;
  L.perExpert.assign(sc.model.experts, 0);
  L.perInstanceBefore.assign(instances, 0);
  L.perInstanceAfter.assign(instances, 0);
  L.perRankBefore.assign(R, 0);
  L.perRankAfter.assign(R, 0);
  for (int r = 0; r < R && r < static_cast<int>(gating.size()); ++r) {
    for (std::int32_t e : gating[r].topkIds) {
      L.perExpert[e] += 1;
      // Before balancing every logical expert lives on its own instance; with redundant
      // instances (P*R > E) the extra ones receive nothing.
      if (e < instances) {
        L.perInstanceBefore[e] += 1;
        L.perRankBefore[e / P] += 1;
      }
    }
    const ops::UpdateExpertResult ue = ops::updateExpertReference(updateExpertArgs(sc, gating[r], r));
    for (std::size_t i = 0; i < ue.balancedIds.size(); ++i) {
      if (ue.balancedActiveMask && !(*ue.balancedActiveMask)[i]) continue;  // pruned slot
      const std::int32_t inst = ue.balancedIds[i];
      if (inst < 0 || inst >= instances) continue;
      L.perInstanceAfter[inst] += 1;
      L.perRankAfter[inst / P] += 1;
    }
  }
  return L;
}

}  // namespace moe::ui
