// Emulated MoeUpdateExpert kernel (seed 002, SPEC §3.1). Each AIV core maps a contiguous
// range of the BS*K expert ids; the first BS*K mod cores cores take one extra element.

#include "core/kernels/kernels.h"
#include "core/plan/core_split.h"

namespace moe {

namespace {

Task updateExpertCore(LayerContext& ctx, int rank, AiCore& core, CoreRange range) {
  if (range.size() == 0) co_return;
  Machine& m = ctx.m;
  CardTensors& g = ctx.cards[rank];
  const int K = ctx.K, F = ctx.F;
  const std::int64_t t0 = range.begin / K, t1 = (range.end - 1) / K + 1;  // tokens touched
  const std::int64_t n = range.size();

  // Stage the inputs in UB: the table, this core's ids, and for pruning the whole rows of
  // the tokens it touches (the threshold compares against the token's sum of scales).
  Buffer* table = m.allocUb(core, ctx.E * F * 4, "table", false);
  Buffer* ids = m.allocUb(core, n * 4, "ids", false);
  core.copy(whole(table), whole(g.table));
  OpRef loaded = core.copy(whole(ids), Region{g.topkIds, range.begin * 4, n * 4});
  Buffer *scales = nullptr, *active = nullptr, *mask = nullptr;
  if (ctx.pruning) {
    scales = m.allocUb(core, (t1 - t0) * K * 4, "scales", false);
    active = m.allocUb(core, t1 - t0, "active", false);
    mask = m.allocUb(core, n, "mask", false);
    core.copy(whole(scales), Region{g.topkWeights, t0 * K * 4, (t1 - t0) * K * 4});
    loaded = core.copy(whole(active), Region{g.active, t0, t1 - t0});
  }
  co_await loaded;  // MTE2 is in order: the last load landing means all have

  // Map each id: count == 1 -> the only instance; by rank -> the instance for this rank's
  // slice of the world; by token -> round-robin over instances.
  co_await core.vector(n * 4, 4);
  const auto* tab = table->as<std::int32_t>();
  auto* out = ids->as<std::int32_t>();
  const int world = ctx.R;
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
        slot = static_cast<int>((flat / K) % count) + 1;
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
    core.copy(Region{g.mask, range.begin, n}, whole(mask));
  }
  co_await core.copy(Region{g.balancedIds, range.begin * 4, n * 4}, whole(ids));
}

}  // namespace

void launchUpdateExpert(LayerContext& ctx, Latch& done) {
  const int cores = ctx.m.hw().aivCores;
  for (int r = 0; r < ctx.R; ++r) {
    const auto ranges = splitContiguous(static_cast<std::int64_t>(ctx.BS) * ctx.K, cores);
    for (int c = 0; c < cores; ++c) {
      if (ranges[c].size() == 0) continue;
      done.add(1);
      ctx.emu.launch(ctx.m.aiv(r, c), Role::Mapper,
                     updateExpertCore(ctx, r, ctx.m.aiv(r, c), ranges[c]), &done);
    }
  }
}

}  // namespace moe
