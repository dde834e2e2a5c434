#include "core/plan/combine_plan.h"

#include <algorithm>

namespace moe {

CombinePlan buildCombinePlan(const LayerContext& ctx) {
  CombinePlan p;
  p.lanes = std::max(1, std::min(ctx.sc.rings.forwarderCores, ctx.S));
  p.channels = std::max(1, std::min(ctx.sc.rings.receiverCores, ctx.BS));
  const int R = ctx.R, BS = ctx.BS, K = ctx.K;
  p.fwdRows.assign(R, std::vector<std::int64_t>(static_cast<std::size_t>(ctx.cps) * p.lanes, 0));
  p.fwdCount.assign(R, std::vector<std::int32_t>(static_cast<std::size_t>(ctx.S) * BS, 0));
  p.recvRecords.assign(R,
                       std::vector<std::int64_t>(static_cast<std::size_t>(ctx.S) * p.channels, 0));
  p.recvServers.assign(R, std::vector<std::int32_t>(BS, 0));
  // Rows card d sends toward each owner r: the dispatch Length table of d.
  for (int d = 0; d < R; ++d) {
    const auto* len = ctx.cards[d].lengths->as<std::int32_t>();
    for (int r = 0; r < R; ++r) {
      std::int64_t rows = 0;
      for (int le = 0; le < ctx.P; ++le) rows += len[le * R + r];
      const int f = ctx.serverOf(d) * ctx.cps + ctx.localOf(r);
      p.fwdRows[f][ctx.localOf(d) * p.lanes + p.lane(ctx, r)] += rows;
    }
  }
  // Contributions per (owner token, server), from the owner's routing.
  for (int r = 0; r < R; ++r) {
    const auto* ids = ctx.cards[r].balancedIds->as<std::int32_t>();
    const auto* keep = ctx.cards[r].mask->data();
    for (int t = 0; t < BS; ++t) {
      std::vector<int> perServer(ctx.S, 0);
      for (int k = 0; k < K; ++k)
        if (keep[t * K + k]) ++perServer[ctx.serverOf(ctx.rankOfInstance(ids[t * K + k]))];
      for (int S = 0; S < ctx.S; ++S) {
        if (perServer[S] == 0) continue;
        const int f = S * ctx.cps + ctx.localOf(r);
        p.fwdCount[f][static_cast<std::size_t>(ctx.serverOf(r)) * BS + t] = perServer[S];
        ++p.recvRecords[r][static_cast<std::size_t>(S) * p.channels + p.channel(ctx, t)];
        ++p.recvServers[r][t];
      }
    }
  }
  return p;
}

}  // namespace moe
