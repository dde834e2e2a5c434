#include "core/reference/combine_reference.h"

#include <algorithm>
#include <cmath>

#include "core/reference/dispatch_reference.h"

namespace moe {

void sharedExpertRow(const bf16* x, bf16* y, int hidden) {
  const ExpertCoefficients shared{0.5f, 0.03125f};
  expertRow(shared, x, y, hidden);
}

std::vector<std::vector<bf16>> combineExpandedReference(
    int tokens, int hidden, int topk, const std::vector<std::vector<bf16>>& expandX,
    const std::vector<std::vector<std::int32_t>>& expandIdx,
    const std::vector<std::vector<float>>& weights, const std::vector<std::vector<bf16>>& sharedX) {
  const std::size_t R = weights.size(), H = static_cast<std::size_t>(hidden);
  const std::size_t slots = static_cast<std::size_t>(tokens) * static_cast<std::size_t>(topk);
  // Where each source slot's expert output is: a row pointer, or null when it was not sent.
  std::vector<std::vector<const bf16*>> row(R, std::vector<const bf16*>(slots, nullptr));
  for (std::size_t d = 0; d < expandIdx.size(); ++d)
    for (std::size_t r = 0; r * 3 < expandIdx[d].size(); ++r) {
      const auto s = static_cast<std::size_t>(expandIdx[d][r * 3]);
      const auto slot = static_cast<std::size_t>(expandIdx[d][r * 3 + 1]) * topk +
                        static_cast<std::size_t>(expandIdx[d][r * 3 + 2]);
      row[s][slot] = expandX[d].data() + r * H;
    }
  std::vector<std::vector<bf16>> out(R);
  std::vector<float> acc(H);
  for (std::size_t s = 0; s < R; ++s) {
    out[s].resize(static_cast<std::size_t>(tokens) * H);
    for (std::size_t t = 0; t < static_cast<std::size_t>(tokens); ++t) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (std::size_t k = 0; k < static_cast<std::size_t>(topk); ++k) {
        const bf16* y = row[s][t * topk + k];
        if (y == nullptr) continue;
        const float w = weights[s][t * topk + k];
        for (std::size_t h = 0; h < H; ++h) acc[h] += w * bf16ToFloat(y[h]);
      }
      if (!sharedX.empty() && !sharedX[s].empty())
        for (std::size_t h = 0; h < H; ++h) acc[h] += bf16ToFloat(sharedX[s][t * H + h]);
      for (std::size_t h = 0; h < H; ++h) out[s][t * H + h] = floatToBf16(acc[h]);
    }
  }
  return out;
}

void combineReferenceRow(const CombineShape& sh, const CombineSource& src, int t, float* s,
                         bf16* out, float* b, bf16* y) {
  const int H = sh.hidden, K = sh.topk;
  const bf16* x = src.x->data() + static_cast<std::size_t>(t) * H;
  const bf16* routed =
      (src.routedX ? src.routedX : src.x)->data() + static_cast<std::size_t>(t) * H;
  std::fill(s, s + H, 0.0f);
  std::fill(b, b + H, 0.0f);
  auto accumulate = [&](float w) {  // y, weighted, into the sum and the bound
    for (int h = 0; h < H; ++h) {
      const float v = w * bf16ToFloat(y[h]);
      s[h] += v;
      b[h] += std::fabs(v);
    }
  };
  // The sum in k order, then the shared expert (weight 1, exact): the order
  // combineExpandedReference uses too.
  for (int k = 0; k < K; ++k) {
    const std::size_t i = static_cast<std::size_t>(t) * K + k;
    if (!(*src.keep)[i]) continue;
    expertRow(expertCoefficients((*src.experts)[i]), routed, y, H);
    accumulate((*src.weights)[i]);
  }
  if (sh.sharedExpert) {
    sharedExpertRow(x, y, H);
    accumulate(1.0f);
  }
  // One bf16 ulp of the result (both sides round once) plus fp32 reordering of K terms,
  // plus the rounding of bf16 partials on the wire (see CombineShape::partialRounding).
  const float terms = 0x1p-16f + sh.partialRounding;
  for (int h = 0; h < H; ++h) {
    out[h] = floatToBf16(s[h]);
    b[h] = std::fabs(s[h]) * 0x1p-7f + b[h] * terms + 1e-30f;
  }
}

CombineReference combineReference(const CombineShape& sh, const CombineSource& src) {
  const std::size_t H = static_cast<std::size_t>(sh.hidden);
  const std::size_t n = static_cast<std::size_t>(sh.tokens) * H;
  CombineReference ref;
  ref.out.resize(n);
  ref.bound.resize(n);
  ref.sum.resize(n);
  std::vector<bf16> y(H);
  for (int t = 0; t < sh.tokens; ++t) {
    const std::size_t at = static_cast<std::size_t>(t) * H;
    combineReferenceRow(sh, src, t, ref.sum.data() + at, ref.out.data() + at, ref.bound.data() + at,
                        y.data());
  }
  return ref;
}

float rmsNormGamma(int h) {
  return 1.0f + 0.015625f * static_cast<float>(h % 9);
}

AddRmsNormResult addRmsNormReference(const std::vector<float>& combined,
                                     const std::vector<bf16>& residual, int tokens, int hidden,
                                     float eps) {
  AddRmsNormResult r;
  r.y.resize(combined.size());
  r.xOut.resize(combined.size());
  r.rstd.resize(tokens);
  std::vector<float> xo(hidden);
  for (int t = 0; t < tokens; ++t) {
    const std::size_t base = static_cast<std::size_t>(t) * hidden;
    float sq = 0.0f;
    for (int h = 0; h < hidden; ++h) {
      xo[h] = combined[base + h] + bf16ToFloat(residual[base + h]);
      sq += xo[h] * xo[h];
    }
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(hidden) + eps);
    r.rstd[t] = rstd;
    for (int h = 0; h < hidden; ++h) {
      r.xOut[base + h] = floatToBf16(xo[h]);
      r.y[base + h] = floatToBf16(xo[h] * rstd * rmsNormGamma(h));
    }
  }
  return r;
}

}  // namespace moe
