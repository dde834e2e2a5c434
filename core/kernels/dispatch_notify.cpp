// Dispatch step 1 (every design): every rank counts, per destination rank and token
// channel, the tokens it will send and the rows per local expert, and writes that row of
// counts into each destination's recvCounts[src] (HCCS inside the server, RDMA across).
// Then SyncAll: after it, every consumer knows exactly how much data to expect, so the data
// phase needs no end-of-stream barrier (as DeepEP's notify_dispatch, whose channel prefix
// matrices play the same part for its channels).

#include <algorithm>

#include "core/kernels/kernels.h"

namespace moe {

namespace {

// Counts the rank's mapped routing (`routed`) into every destination's recvCounts.
Task notifyCore(LayerContext& ctx, int rank, AiCore& core, const ExpertUpdateTensors& routed,
                SyncBarrier& barrier) {
  Machine& m = ctx.m;
  const int K = ctx.topK, P = ctx.placePerRank, R = ctx.ranks, cols = ctx.countCols();
  // The routing comes in windows of at most kRoutingWindowTokens tokens (one for <= 512).
  const int W = routingWindowTokens(ctx.tokensPerRank);
  Buffer* ids = m.allocUb(core, static_cast<std::int64_t>(W) * K * 4, "ids", false);
  Buffer* mask = m.allocUb(core, static_cast<std::int64_t>(W) * K, "mask", false);

  // counts[d] = per channel: tokens to rank d, tokens to d's server, rows to d's experts
  const std::int64_t rowBytes = alignUp(cols * 4LL, 32);
  Buffer* counts = m.allocUb(core, R * rowBytes, "counts", false);
  auto cell = [&](int d, int c) -> std::int32_t& {
    return counts->as<std::int32_t>()[d * rowBytes / 4 + c];
  };
  const auto* id = ids->as<std::int32_t>();
  std::vector<char> toRank(R, 0), toServer(ctx.servers, 0);
  for (int w0 = 0; w0 < ctx.tokensPerRank; w0 += W) {
    const std::int64_t n = std::min(W, ctx.tokensPerRank - w0), slots = n * K;
    core.copy(Region{ids, 0, slots * 4}, Region{routed.balancedIds, w0 * K * 4LL, slots * 4});
    co_await core.copy(Region{mask, 0, slots},
                       Region{routed.mask, w0 * static_cast<std::int64_t>(K), slots});
    co_await core.vector(slots, 4);
    for (int t = 0; t < n; ++t) {
      const int ch = ctx.channelOf(w0 + t);
      std::fill(toRank.begin(), toRank.end(), 0);
      std::fill(toServer.begin(), toServer.end(), 0);
      for (int k = 0; k < K; ++k) {
        if (!mask->data()[t * K + k]) continue;
        const int d = ctx.rankOfInstance(id[t * K + k]);
        ++cell(d, ctx.colRows(id[t * K + k] % P, ch));
        toRank[d] = 1;
        toServer[ctx.serverOf(d)] = 1;
      }
      for (int d = 0; d < R; ++d) {
        cell(d, ctx.colToRank(ch)) += toRank[d];
        cell(d, ctx.colToServer(ch)) += toServer[ctx.serverOf(d)];
      }
    }
  }
  // Send row d to rank d. Peers in this server: MTE3 straight into their GM. Other
  // servers: stage in local GM, then one RDMA post each.
  Buffer* stage = m.allocGm(rank, R * rowBytes, "notify.stage", false);
  for (int d = 0; d < R; ++d) {
    const Region src{counts, d * rowBytes, cols * 4LL};
    const Region dst{ctx.cards[d].dispatch.recvCounts, static_cast<std::int64_t>(rank) * cols * 4,
                     cols * 4LL};
    if (ctx.serverOf(d) == ctx.serverOf(rank)) {
      core.copy(dst, src);
    } else {
      core.copy(Region{stage, d * rowBytes, cols * 4LL}, src);
    }
  }
  co_await core.fence(Pipe::Mte3);
  for (int d = 0; d < R; ++d)
    if (ctx.serverOf(d) != ctx.serverOf(rank))
      core.rdmaWrite(Region{ctx.cards[d].dispatch.recvCounts,
                            static_cast<std::int64_t>(rank) * cols * 4, cols * 4LL},
                     Region{stage, d * rowBytes, cols * 4LL});
  co_await core.fence(Pipe::Scalar);  // every RDMA write has landed
  co_await core.syncAll(barrier);
}

}  // namespace

void launchDispatchNotify(LayerContext& ctx, Latch& done) {
  SyncBarrier& barrier = ctx.emu.addBarrier("dispatch.notify", ctx.ranks);
  for (int r = 0; r < ctx.ranks; ++r) {
    done.add(1);
    AiCore& core = ctx.m.aiv(r, 0);
    ctx.emu.launch(core, Role::Sender, notifyCore(ctx, r, core, ctx.cards[r].update, barrier),
                   &done);
  }
}

}  // namespace moe
