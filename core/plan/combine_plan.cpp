#include "core/plan/combine_plan.h"

#include <algorithm>

namespace moe {

void combineLanesAndChannels(const Scenario& sc, int& lanes, int& channels) {
  const int S = sc.cluster.servers, F = sc.rings.combine.forwarderCores;
  const int BS = sc.model.tokensPerRank;
  // Enough channels that servers x channels covers every forwarder core.
  channels = std::max(1, std::min(BS, std::max(sc.rings.combine.receiverCores, (F + S - 1) / S)));
  lanes = std::max(1, std::min(F, S * channels));
}

CombinePlan buildCombinePlan(const LayerContext& ctx) {
  CombinePlan p;
  combineLanesAndChannels(ctx.sc, p.lanes, p.channels);
  const int R = ctx.ranks, BS = ctx.tokensPerRank, K = ctx.topK;
  p.fwdRows.assign(
      R, std::vector<std::int64_t>(static_cast<std::size_t>(ctx.cardsPerServer) * p.lanes, 0));
  p.fwdCount.assign(R, std::vector<std::int32_t>(static_cast<std::size_t>(ctx.servers) * BS, 0));
  p.recvRecords.assign(
      R, std::vector<std::int64_t>(static_cast<std::size_t>(ctx.servers) * p.channels, 0));
  p.recvServers.assign(R, std::vector<std::int32_t>(BS, 0));
  // Per kept (owner token, k): one expert row on card d, forwarded by f on the token's lane;
  // the same rows dispatch counted in d's Length table. With sum_local_experts, card d
  // sends one summed row per token instead, whatever the number of its experts.
  const bool perCard = ctx.sc.combine.sumLocalExperts;
  for (int r = 0; r < R; ++r) {
    const auto* ids = ctx.cards[r].update.balancedIds->as<std::int32_t>();
    const auto* keep = ctx.cards[r].update.mask->data();
    for (int t = 0; t < BS; ++t) {
      std::vector<int> perServer(ctx.servers, 0);
      const int lane = p.lane(ctx, r, t);
      auto card = [&](int k) { return ctx.rankOfInstance(ids[t * K + k]); };
      for (int k = 0; k < K; ++k) {
        if (!keep[t * K + k]) continue;
        const int d = card(k);
        bool counted = false;  // with perCard: an earlier kept slot of the token is on d
        for (int j = 0; perCard && j < k && !counted; ++j)
          counted = keep[t * K + j] && card(j) == d;
        if (counted) continue;
        ++perServer[ctx.serverOf(d)];
        const int f = ctx.serverOf(d) * ctx.cardsPerServer + ctx.localOf(r);
        ++p.fwdRows[f][ctx.localOf(d) * p.lanes + lane];
      }
      for (int S = 0; S < ctx.servers; ++S) {
        if (perServer[S] == 0) continue;
        const int f = S * ctx.cardsPerServer + ctx.localOf(r);
        p.fwdCount[f][static_cast<std::size_t>(ctx.serverOf(r)) * BS + t] = perServer[S];
        ++p.recvRecords[r][static_cast<std::size_t>(S) * p.channels + p.channel(ctx, t)];
        ++p.recvServers[r][t];
      }
    }
  }
  return p;
}

std::vector<SenderTargetSlot> senderTargetOrder(int cardsPerServer, int lanes, int localCard) {
  std::vector<SenderTargetSlot> order;
  order.reserve(static_cast<std::size_t>(cardsPerServer) * lanes);
  for (int n = 0; n < lanes; ++n)
    for (int i = 0; i < cardsPerServer; ++i) {
      const int j = (i + n) % cardsPerServer;
      order.push_back({(localCard + j) % cardsPerServer, (j + n) % lanes});
    }
  return order;
}

}  // namespace moe
