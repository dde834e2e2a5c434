// The experts (DESIGN.md §3.4). Each local expert gets an equal group of the card's AIC cores;
// a core takes a contiguous share of its expert's rows, tile by tile through L1. Timing is
// a SwiGLU FFN (6*n*H*I FLOPs on the cube unit); the data is y = a_e*x + b_e. With skewed
// routing, the cores of cold experts finish early and sit idle: the imbalance is visible.
//
// The L1 tile takes its space but holds no host bytes: once a tile's copy-out has landed,
// its rows of expert_out are computed from the same rows of expand_x, which only this core
// reads. The result is the same bytes at the same emulated time, without every AIC core of
// the cluster holding a tile of host memory (187 MiB by default). It also lets expert_out
// share expand_x's bytes (LayerRun frees tensors when dead): the rows are read just before
// they are written.

#include <algorithm>

#include "core/kernels/kernels.h"
#include "core/plan/core_split.h"
#include "core/reference/dispatch_reference.h"

namespace moe {

namespace {

struct ExpertShare {
  int le;
  std::int64_t rowBegin, rowEnd;
};

// Reads the rows dispatch delivered to card d (`in`), writes their expert outputs (`out`).
Task expertCore(LayerContext& ctx, int d, AiCore& core, const DispatchTensors& in,
                ExpertTensors& out, std::vector<ExpertShare> shares) {
  const std::int64_t tileRows =
      std::max<std::int64_t>(1, std::min<std::int64_t>(128, ctx.m.hw().l1Bytes / ctx.rowBytes));
  Buffer* tile = ctx.m.allocUb(core, tileRows * ctx.rowBytes, "l1.tile", true, /*withBytes=*/false);
  for (const ExpertShare& sh : shares) {
    // The instance holds its logical expert's weights: replicas compute the same function.
    const ExpertCoefficients c = expertCoefficients(
        ctx.instanceLogical[static_cast<std::size_t>(d * ctx.placePerRank + sh.le)]);
    for (std::int64_t r0 = sh.rowBegin; r0 < sh.rowEnd; r0 += tileRows) {
      const std::int64_t n = std::min(tileRows, sh.rowEnd - r0);
      const Region rows{tile, 0, n * ctx.rowBytes};
      co_await core.copy(rows, Region{in.expandX, r0 * ctx.rowBytes, n * ctx.rowBytes});
      co_await core.cube(6.0 * static_cast<double>(n) * ctx.hidden * ctx.sc.model.intermediate);
      co_await core.copy(Region{out.expertOut, r0 * ctx.rowBytes, n * ctx.rowBytes}, rows);
      if (!out.expertOut->bytes.empty() && !in.expandX->bytes.empty()) {
        const bf16* x = in.expandX->as<bf16>() + r0 * ctx.hidden;
        bf16* y = out.expertOut->as<bf16>() + r0 * ctx.hidden;
        for (std::int64_t i = 0; i < n; ++i)
          expertRow(c, x + i * ctx.hidden, y + i * ctx.hidden, ctx.hidden);
      }
    }
  }
}

}  // namespace

void launchExperts(LayerContext& ctx, Latch& done) {
  const int aic = ctx.m.hw().aicCores;
  for (int d = 0; d < ctx.ranks; ++d) {
    const auto* nums = ctx.cards[d].dispatch.expertTokenNums->as<std::int32_t>();
    std::vector<std::vector<ExpertShare>> perCore(aic);
    std::int64_t expertStart = 0;
    for (int le = 0; le < ctx.placePerRank; ++le) {
      // Cores [first, last) serve expert le; with more experts than cores they share.
      const int first = static_cast<int>(static_cast<std::int64_t>(le) * aic / ctx.placePerRank);
      const int last = std::max(
          first + 1, static_cast<int>(static_cast<std::int64_t>(le + 1) * aic / ctx.placePerRank));
      const auto shares = splitContiguous(nums[le], last - first);
      for (int i = 0; i < last - first; ++i)
        if (shares[i].size() > 0)
          perCore[(first + i) % aic].push_back(
              {le, expertStart + shares[i].begin, expertStart + shares[i].end});
      expertStart += nums[le];
    }
    for (int c = 0; c < aic; ++c) {
      if (perCore[c].empty()) continue;
      done.add(1);
      ctx.emu.launch(ctx.m.aic(d, c), Role::Gemm,
                     expertCore(ctx, d, ctx.m.aic(d, c), ctx.cards[d].dispatch,
                                ctx.cards[d].experts, perCore[c]),
                     &done);
    }
  }
}

}  // namespace moe
