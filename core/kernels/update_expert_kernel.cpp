// Emulated MoeUpdateExpert kernel (seed 002, DESIGN.md §3.1). Each AIV core maps a contiguous
// range of the BS*K expert ids; the first BS*K mod cores cores take one extra element.
// The operator takes at most 512 tokens, so a larger batch runs as one call per slice of
// at most 512 tokens (as layerUpdateExpert in core/run/layer_args.h): each core maps
// its range of every slice in turn, back to back, and a slice counts its tokens from 0.

#include <algorithm>

#include "core/kernels/kernels.h"
#include "core/plan/core_split.h"
#include "core/reference/update_expert.h"

namespace moe {

namespace {

// One core's share of one slice: flat elements [range.begin, range.end) of the batch,
// inside the slice whose first token is sliceToken.
struct SlicePiece {
  std::int64_t sliceToken;
  CoreRange range;
};

// Reads the rank's routing (`in`), writes its outputs (`update`).
Task updateExpertCore(LayerContext& ctx, int rank, AiCore& core, const InputTensors& in,
                      ExpertUpdateTensors& update, std::vector<SlicePiece> pieces) {
  if (pieces.empty()) co_return;
  Machine& m = ctx.m;
  const int K = ctx.topK, F = ctx.tableCols;
  std::int64_t maxN = 0, maxTokens = 0;
  for (const SlicePiece& p : pieces) {
    maxN = std::max(maxN, p.range.size());
    maxTokens = std::max(maxTokens, (p.range.end - 1) / K + 1 - p.range.begin / K);
  }

  // Stage the inputs in UB: the table, this core's ids, and for pruning the whole rows of
  // the tokens it touches (the threshold compares against the token's sum of scales).
  Buffer* table = m.allocUb(core, ctx.experts * F * 4, "table", false);
  Buffer* ids = m.allocUb(core, maxN * 4, "ids", false);
  core.copy(whole(table), whole(in.table));
  Buffer *scales = nullptr, *active = nullptr, *mask = nullptr;
  if (ctx.pruning) {
    scales = m.allocUb(core, maxTokens * K * 4, "scales", false);
    active = m.allocUb(core, maxTokens, "active", false);
    mask = m.allocUb(core, maxN, "mask", false);
  }
  for (const SlicePiece& piece : pieces) {
    const CoreRange range = piece.range;
    const std::int64_t t0 = range.begin / K, t1 = (range.end - 1) / K + 1;  // tokens touched
    const std::int64_t n = range.size();
    OpRef loaded = core.copy(Region{ids, 0, n * 4}, Region{in.topkIds, range.begin * 4, n * 4});
    if (ctx.pruning) {
      core.copy(Region{scales, 0, (t1 - t0) * K * 4},
                Region{in.topkWeights, t0 * K * 4, (t1 - t0) * K * 4});
      loaded = core.copy(Region{active, 0, t1 - t0}, Region{in.active, t0, t1 - t0});
    }
    co_await loaded;  // MTE2 is in order: the last load landing means all have

    // Map each id: count == 1 -> the only instance; by rank -> the instance for this rank's
    // slice of the world; by token -> round-robin over instances, by token within the slice.
    co_await core.vector(n * 4, 4);
    const auto* tab = table->as<std::int32_t>();
    auto* out = ids->as<std::int32_t>();
    const int world = ctx.ranks;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t flat = range.begin + i;
      const std::int32_t e = out[i];
      const int count = tab[e * F];
      int slot = 1;
      if (count > 1) {
        if (ctx.sc.eplb.balanceMode == 0) {
          const int ranksPerInstance = (world + count - 1) / count;
          slot = rank / ranksPerInstance + 1;
        } else {
          slot = static_cast<int>((flat / K - piece.sliceToken) % count) + 1;
        }
      }
      out[i] = tab[e * F + slot];
    }
    if (ctx.pruning) {
      const auto* sc = scales->as<float>();
      const auto& threshold = ctx.sc.eplb.pruningThreshold;
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t flat = range.begin + i;
        const std::int64_t t = flat / K - t0;
        const int k = static_cast<int>(flat % K);
        float sum = 0.0f;
        for (int j = 0; j < K; ++j) sum += sc[t * K + j];
        mask->data()[i] = active->data()[t] != 0 && sc[t * K + k] >= threshold[k] * sum;
      }
      core.copy(Region{update.mask, range.begin, n}, Region{mask, 0, n});
    }
    // The UB ids are reused by the next slice: its load waits for this store.
    co_await core.copy(Region{update.balancedIds, range.begin * 4, n * 4}, Region{ids, 0, n * 4});
  }
}

}  // namespace

void launchUpdateExpert(LayerContext& ctx, Latch& done) {
  const int cores = ctx.m.hw().aivCores;
  const int K = ctx.topK;
  for (int r = 0; r < ctx.ranks; ++r) {
    std::vector<std::vector<SlicePiece>> pieces(static_cast<std::size_t>(cores));
    for (int b = 0; b < ctx.tokensPerRank; b += kUpdateExpertMaxBs) {
      const int e = std::min(ctx.tokensPerRank, b + kUpdateExpertMaxBs);
      const auto ranges = splitContiguous(static_cast<std::int64_t>(e - b) * K, cores);
      for (int c = 0; c < cores; ++c) {
        if (ranges[c].size() == 0) continue;
        const std::int64_t at = static_cast<std::int64_t>(b) * K;
        pieces[c].push_back({b, CoreRange{at + ranges[c].begin, at + ranges[c].end}});
      }
    }
    for (int c = 0; c < cores; ++c) {
      if (pieces[c].empty()) continue;
      done.add(1);
      ctx.emu.launch(ctx.m.aiv(r, c), Role::Mapper,
                     updateExpertCore(ctx, r, ctx.m.aiv(r, c), ctx.cards[r].input,
                                      ctx.cards[r].update, std::move(pieces[c])),
                     &done);
    }
  }
}

}  // namespace moe
