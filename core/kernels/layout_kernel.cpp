// Emulated get_dispatch_layout (seed 003, DESIGN.md §3.2). The first ceil(E/4) blocks each count
// 4 experts; the later blocks each count one server's ranks (8 on a 910B server). Every
// block walks all tokens with a grid-stride loop over its lanes, keeps per-lane partial
// counts, and reduces them at the end. Blocks are spread round-robin over the AIV cores.

#include <algorithm>

#include "core/kernels/kernels.h"

namespace moe {

namespace {

constexpr int kLanes = 256;          // threads per block in the seed
constexpr int kExpertsPerBlock = 4;  // kNumExpertsPerSM

struct LayoutBlock {
  bool countsExperts;
  int begin, end;  // experts or ranks
};

// Loads tokens [w0, w0 + n) of this rank's ids into UB with pruned slots turned into -1
// (skipped).
Task loadIds(LayerContext& ctx, AiCore& core, const ExpertUpdateTensors& routed, Buffer* ids,
             Buffer* mask, int w0, int n) {
  const std::int64_t slots = static_cast<std::int64_t>(n) * ctx.topK;
  const std::int64_t at = static_cast<std::int64_t>(w0) * ctx.topK;
  OpRef last = core.copy(Region{ids, 0, slots * 4}, Region{routed.balancedIds, at * 4, slots * 4});
  if (ctx.pruning) {
    last = core.copy(Region{mask, 0, slots}, Region{routed.mask, at, slots});
    co_await last;
    for (std::int64_t i = 0; i < slots; ++i)
      if (!mask->data()[i]) ids->as<std::int32_t>()[i] = -1;
    co_return;
  }
  co_await last;
}

// Tokens come in windows of at most kRoutingWindowTokens: a batch of at most 512 tokens is
// loaded once for all blocks; a larger one is walked window by window in every block (the
// grid-stride loop over the lanes continues across windows).
// The expert ids of one window of tokens in UB: token w0 + i's K ids at ids[i * K].
struct WindowIds {
  const std::int32_t* ids;
  int w0, n, K;
};

// Expert block: lane t % 256 counts token t's hits on experts [begin, end).
void countExpertHits(const WindowIds& w, const LayoutBlock& b, std::vector<int>& perLane) {
  const int width = b.end - b.begin;
  for (int i = 0; i < w.n; ++i)
    for (int j = 0; j < w.K; ++j) {
      const int e = w.ids[i * w.K + j];
      if (e >= b.begin && e < b.end) ++perLane[((w.w0 + i) % kLanes) * width + (e - b.begin)];
    }
}

// Rank block: a token counts once per rank and once per server it touches; its row of
// is_token_in_rank goes to `inRank` (one row of `stride` bytes per token of the window).
void countRankHits(const WindowIds& w, const LayoutBlock& b, int P, std::uint8_t* inRank,
                   std::int64_t stride, std::vector<int>& perLane, std::vector<int>& perLaneRdma) {
  const int width = b.end - b.begin;
  for (int i = 0; i < w.n; ++i) {
    bool inServer = false;
    for (int r = b.begin; r < b.end; ++r) {
      bool hit = false;
      for (int j = 0; j < w.K; ++j) {
        const int e = w.ids[i * w.K + j];
        hit = hit || (e >= 0 && e / P == r);
      }
      inRank[i * stride + (r - b.begin)] = hit;
      if (hit) ++perLane[((w.w0 + i) % kLanes) * width + (r - b.begin)];
      inServer = inServer || hit;
    }
    if (inServer) ++perLaneRdma[(w.w0 + i) % kLanes];
  }
}

// out[c] = the sum over lanes of column c of a lane table (kLanes rows of `width`). It takes
// the table so that it is freed here: a block's last stores and fence are awaited after
// the reduction, and at 256 ranks thousands of cores wait there at once (8 KB each).
void reduceLanes(std::vector<int> perLane, int width, std::int32_t* out) {
  for (int c = 0; c < width; ++c) {
    int sum = 0;
    for (int lane = 0; lane < kLanes; ++lane) sum += perLane[lane * width + c];
    out[c] = sum;
  }
}

// Reads the rank's mapped routing (`routed`), writes the layout (`layout`).
Task layoutCore(LayerContext& ctx, AiCore& core, const ExpertUpdateTensors& routed,
                LayoutTensors& layout, std::vector<LayoutBlock> blocks) {
  Machine& m = ctx.m;
  const int T = ctx.tokensPerRank, K = ctx.topK, P = ctx.placePerRank;
  const int W = routingWindowTokens(T);
  const bool oneWindow = W == T;
  Buffer* ids = m.allocUb(core, static_cast<std::int64_t>(W) * K * 4, "topk_idx", false);
  Buffer* mask =
      ctx.pruning ? m.allocUb(core, static_cast<std::int64_t>(W) * K, "mask", false) : nullptr;
  if (oneWindow) co_await loadIds(ctx, core, routed, ids, mask, 0, T);
  const auto* idx = ids->as<std::int32_t>();
  Buffer* inRank = nullptr;
  for (const LayoutBlock& b : blocks) {
    const int width = b.end - b.begin;
    std::vector<int> perLane(static_cast<std::size_t>(kLanes) * width, 0);
    std::vector<int> perLaneRdma(kLanes, 0);
    // One UB row per token, padded to 32 B so each row's DataCopy starts aligned.
    const std::int64_t stride = alignUp(width, 32);
    if (!b.countsExperts && !inRank)  // shared by this core's rank blocks (width <= cps)
      inRank = m.allocUb(core, static_cast<std::int64_t>(W) * alignUp(ctx.cardsPerServer, 32),
                         "is_token_in_rank", false);
    // is_token_in_rank[t, begin:end) of the window at w0: one small strided row per token.
    auto storeInRank = [&](int w0, int n) {
      core.copyRows(
          Region{layout.isTokenInRank, static_cast<std::int64_t>(w0) * ctx.ranks + b.begin, width},
          ctx.ranks, Region{inRank, 0, width}, stride, n);
    };
    int lastW0 = 0, lastN = 0;
    for (int w0 = 0; w0 < T; w0 += W) {
      const int n = std::min(W, T - w0);
      if (!oneWindow) {
        if (!b.countsExperts && w0 > 0) {
          storeInRank(lastW0, lastN);
          co_await core.fence(Pipe::Mte3);  // inRank is refilled by this window
        }
        co_await loadIds(ctx, core, routed, ids, mask, w0, n);
      }
      co_await core.vector(static_cast<std::int64_t>(n) * K, 4);
      const WindowIds window{idx, w0, n, K};
      if (b.countsExperts)
        countExpertHits(window, b, perLane);
      else
        countRankHits(window, b, P, inRank->data(), stride, perLane, perLaneRdma);
      lastW0 = w0;
      lastN = n;
    }
    if (b.countsExperts) {
      Buffer* out = m.allocUb(core, width * 4, "expert_counts", false);
      reduceLanes(std::move(perLane), width, out->as<std::int32_t>());
      co_await core.copy(Region{layout.tokensPerExpert, b.begin * 4LL, width * 4LL}, whole(out));
      continue;
    }
    const std::int64_t rdmaAt = alignUp(width * 4LL, 32);  // its own aligned UB block
    Buffer* out = m.allocUb(core, rdmaAt + 4, "rank_counts", false);
    reduceLanes(std::move(perLane), width, out->as<std::int32_t>());
    reduceLanes(std::move(perLaneRdma), 1, out->as<std::int32_t>() + rdmaAt / 4);
    core.copy(Region{layout.tokensPerRank, b.begin * 4LL, width * 4LL},
              Region{out, 0, width * 4LL});
    core.copy(Region{layout.tokensPerRdmaRank, (b.begin / ctx.cardsPerServer) * 4LL, 4},
              Region{out, rdmaAt, 4});
    storeInRank(lastW0, lastN);
    co_await core.fence(Pipe::Mte3);
  }
}

}  // namespace

void launchLayout(LayerContext& ctx, Latch& done) {
  const int cores = ctx.m.hw().aivCores;
  const int physExperts = ctx.ranks * ctx.placePerRank;
  std::vector<LayoutBlock> blocks;
  for (int e = 0; e < physExperts; e += kExpertsPerBlock)
    blocks.push_back({true, e, std::min(e + kExpertsPerBlock, physExperts)});
  // One rank block per server (8 ranks on a 910B server: kNumRanksPerSM), so its RDMA count
  // is that server's.
  for (int r = 0; r < ctx.ranks; r += ctx.cardsPerServer)
    blocks.push_back({false, r, std::min(r + ctx.cardsPerServer, ctx.ranks)});
  for (int rank = 0; rank < ctx.ranks; ++rank) {
    std::vector<std::vector<LayoutBlock>> perCore(std::min<std::size_t>(cores, blocks.size()));
    for (std::size_t b = 0; b < blocks.size(); ++b)
      perCore[b % perCore.size()].push_back(blocks[b]);
    for (std::size_t c = 0; c < perCore.size(); ++c) {
      const bool experts = perCore[c].front().countsExperts;
      done.add(1);
      ctx.emu.launch(ctx.m.aiv(rank, static_cast<int>(c)),
                     experts ? Role::LayoutExpert : Role::LayoutRank,
                     layoutCore(ctx, ctx.m.aiv(rank, static_cast<int>(c)), ctx.cards[rank].update,
                                ctx.cards[rank].layout, perCore[c]),
                     &done);
    }
  }
}

}  // namespace moe
