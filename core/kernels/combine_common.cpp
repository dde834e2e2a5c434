#include "core/kernels/combine_common.h"

#include <cmath>
#include <vector>

#include "core/reference/combine_reference.h"

namespace moe {

OpRef readIndexBlock(AiCore& core, const DispatchTensors& dispatch, std::int64_t first,
                     std::int64_t n, Buffer* idx, Buffer* scales) {
  core.copy(Region{idx, 0, n * 12}, Region{dispatch.expandIdx, first * 12, n * 12});
  return core.copy(Region{scales, 0, n * 4}, Region{dispatch.expandScales, first * 4, n * 4});
}

CombineFinisher::CombineFinisher(LayerContext& ctx, AiCore& core, int rank)
    : ctx_(ctx), core_(core), in_(ctx.cards[rank].input), out_(ctx.cards[rank].combine) {
  Machine& m = ctx.m;
  const std::int64_t row = alignUp(ctx.rowBytes, 32);
  sum_ = m.allocUb(core, ctx.hidden * 4LL, "fp32_sum", true);
  xRow_ = m.allocUb(core, row, "x_row", true);
  outRow_ = m.allocUb(core, row, "out_row", true);
  yRow_ = ctx.sc.combine.addRmsNorm ? m.allocUb(core, row, "y_row", true) : nullptr;
  rstd_ = m.allocUb(core, 32, "rstd", false);
}

Task CombineFinisher::finish(int t) {
  LayerContext& ctx = ctx_;
  const bool shared = ctx.sc.combine.sharedExpert, norm = ctx.sc.combine.addRmsNorm;
  if (shared || norm)
    co_await core_.copy(Region{xRow_, 0, ctx.rowBytes},
                        Region{in_.x, t * ctx.rowBytes, ctx.rowBytes});
  co_await core_.vector(ctx.hidden * (norm ? 4LL : 1LL), 4);
  if (!sum_->bytes.empty()) {
    auto* s = sum_->as<float>();
    const bf16* x = xRow_->as<bf16>();
    if (shared) {
      std::vector<bf16> sh(ctx.hidden);
      sharedExpertRow(x, sh.data(), ctx.hidden);
      for (int h = 0; h < ctx.hidden; ++h) s[h] += bf16ToFloat(sh[h]);
    }
    auto* o = outRow_->as<bf16>();
    if (!norm) {
      for (int h = 0; h < ctx.hidden; ++h) o[h] = floatToBf16(s[h]);
    } else {
      float sq = 0.0f;
      for (int h = 0; h < ctx.hidden; ++h) {
        s[h] += bf16ToFloat(x[h]);  // the residual
        sq += s[h] * s[h];
      }
      const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(ctx.hidden) +
                                          static_cast<float>(ctx.sc.combine.rmsEps));
      rstd_->as<float>()[0] = rstd;
      auto* y = yRow_->as<bf16>();
      for (int h = 0; h < ctx.hidden; ++h) {
        o[h] = floatToBf16(s[h]);
        y[h] = floatToBf16(s[h] * rstd * rmsNormGamma(h));
      }
    }
  }
  core_.copy(Region{out_.xOut, t * ctx.rowBytes, ctx.rowBytes}, Region{outRow_, 0, ctx.rowBytes});
  if (norm) {
    core_.copy(Region{out_.normY, t * ctx.rowBytes, ctx.rowBytes}, Region{yRow_, 0, ctx.rowBytes});
    core_.copy(Region{out_.rstd, t * 4LL, 4}, Region{rstd_, 0, 4});
  }
  co_await core_.fence(Pipe::Mte3);
}

}  // namespace moe
