// Emulated get_dispatch_layout (seed 003, SPEC §3.2). The first ceil(E/4) blocks each count
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

// Loads this rank's ids into UB with pruned slots turned into -1 (skipped).
Task loadIds(LayerContext& ctx, int rank, AiCore& core, Buffer* ids) {
  OpRef last = core.copy(whole(ids), whole(ctx.cards[rank].balancedIds));
  if (ctx.pruning) {
    Buffer* mask = ctx.m.allocUb(core, ctx.BS * ctx.K, "mask", false);
    last = core.copy(whole(mask), whole(ctx.cards[rank].mask));
    co_await last;
    for (std::int64_t i = 0; i < ctx.BS * ctx.K; ++i)
      if (!mask->data()[i]) ids->as<std::int32_t>()[i] = -1;
    co_return;
  }
  co_await last;
}

Task layoutCore(LayerContext& ctx, int rank, AiCore& core, std::vector<LayoutBlock> blocks) {
  Machine& m = ctx.m;
  CardTensors& g = ctx.cards[rank];
  const int T = ctx.BS, K = ctx.K, P = ctx.P;
  Buffer* ids = m.allocUb(core, static_cast<std::int64_t>(T) * K * 4, "topk_idx", false);
  co_await loadIds(ctx, rank, core, ids);
  const auto* idx = ids->as<std::int32_t>();
  for (const LayoutBlock& b : blocks) {
    const int width = b.end - b.begin;
    std::vector<int> perLane(static_cast<std::size_t>(kLanes) * width, 0);
    co_await core.vector(static_cast<std::int64_t>(T) * K, 4);
    if (b.countsExperts) {
      // Expert block: lane t % 256 counts token t's hits on experts [begin, end).
      for (int t = 0; t < T; ++t)
        for (int j = 0; j < K; ++j) {
          const int e = idx[t * K + j];
          if (e >= b.begin && e < b.end) ++perLane[(t % kLanes) * width + (e - b.begin)];
        }
      Buffer* out = m.allocUb(core, width * 4, "expert_counts", false);
      for (int e = 0; e < width; ++e) {
        int sum = 0;
        for (int lane = 0; lane < kLanes; ++lane) sum += perLane[lane * width + e];
        out->as<std::int32_t>()[e] = sum;
      }
      co_await core.copy(Region{g.tokensPerExpert, b.begin * 4LL, width * 4LL}, whole(out));
      continue;
    }
    // Rank block: a token counts once per rank and once per server it touches.
    // One UB row per token, padded to 32 B so each row's DataCopy starts aligned.
    const std::int64_t stride = alignUp(width, 32);
    Buffer* inRank = m.allocUb(core, T * stride, "is_token_in_rank", false);
    std::vector<int> perLaneRdma(kLanes, 0);
    for (int t = 0; t < T; ++t) {
      bool inServer = false;
      for (int r = b.begin; r < b.end; ++r) {
        bool hit = false;
        for (int j = 0; j < K; ++j) {
          const int e = idx[t * K + j];
          hit = hit || (e >= 0 && e / P == r);
        }
        inRank->data()[t * stride + (r - b.begin)] = hit;
        if (hit) ++perLane[(t % kLanes) * width + (r - b.begin)];
        inServer = inServer || hit;
      }
      if (inServer) ++perLaneRdma[t % kLanes];
    }
    const std::int64_t rdmaAt = alignUp(width * 4LL, 32);  // its own aligned UB block
    Buffer* out = m.allocUb(core, rdmaAt + 4, "rank_counts", false);
    for (int r = 0; r < width; ++r) {
      int sum = 0;
      for (int lane = 0; lane < kLanes; ++lane) sum += perLane[lane * width + r];
      out->as<std::int32_t>()[r] = sum;
    }
    int rdma = 0;
    for (int lane = 0; lane < kLanes; ++lane) rdma += perLaneRdma[lane];
    out->as<std::int32_t>()[rdmaAt / 4] = rdma;
    core.copy(Region{g.tokensPerRank, b.begin * 4LL, width * 4LL}, Region{out, 0, width * 4LL});
    core.copy(Region{g.tokensPerRdmaRank, (b.begin / ctx.cps) * 4LL, 4}, Region{out, rdmaAt, 4});
    // is_token_in_rank[t, begin:end): one small strided row per token.
    for (int t = 0; t < T; ++t)
      core.copy(Region{g.isTokenInRank, static_cast<std::int64_t>(t) * ctx.R + b.begin, width},
                Region{inRank, t * stride, width});
    co_await core.fence(Pipe::Mte3);
  }
}

}  // namespace

void launchLayout(LayerContext& ctx, Latch& done) {
  const int cores = ctx.m.hw().aivCores;
  const int physExperts = ctx.R * ctx.P;
  std::vector<LayoutBlock> blocks;
  for (int e = 0; e < physExperts; e += kExpertsPerBlock)
    blocks.push_back({true, e, std::min(e + kExpertsPerBlock, physExperts)});
  // One rank block per server (8 ranks on a 910B server: kNumRanksPerSM), so its RDMA count
  // is that server's.
  for (int r = 0; r < ctx.R; r += ctx.cps)
    blocks.push_back({false, r, std::min(r + ctx.cps, ctx.R)});
  for (int rank = 0; rank < ctx.R; ++rank) {
    std::vector<std::vector<LayoutBlock>> perCore(std::min<std::size_t>(cores, blocks.size()));
    for (std::size_t b = 0; b < blocks.size(); ++b)
      perCore[b % perCore.size()].push_back(blocks[b]);
    for (std::size_t c = 0; c < perCore.size(); ++c) {
      const bool experts = perCore[c].front().countsExperts;
      done.add(1);
      ctx.emu.launch(
          ctx.m.aiv(rank, static_cast<int>(c)), experts ? Role::LayoutExpert : Role::LayoutRank,
          layoutCore(ctx, rank, ctx.m.aiv(rank, static_cast<int>(c)), perCore[c]), &done);
    }
  }
}

}  // namespace moe
