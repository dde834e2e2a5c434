#pragma once
// Golden references for combine (DESIGN.md §3.5) and CombineAddRmsNorm (DESIGN.md §3.5c).
//
//   out[t] = bf16( sum over kept k of w[t,k] * y_k(t)  (+ shared(t)) )
// with y_k(t) = bf16(a_e x_t + b_e) the output of logical expert e = experts[t,k] (whichever
// replica served it: replicas hold the same weights), the sum in fp32
// in k order, rounded once. The emulated designs sum in other orders (per server first),
// so they are compared within combineTolerance().

#include <cstdint>
#include <vector>

#include "core/util/bf16.h"

namespace moe {

struct CombineSource {                       // one source rank
  const std::vector<bf16>* x;                // [BS*H]
  const std::vector<std::int32_t>* experts;  // [BS*K] logical experts (the router's choice)
  const std::vector<float>* weights;         // [BS*K]
  const std::vector<std::uint8_t>* keep;     // [BS*K]
  // The rows the routed experts received, if not x: with an fp8 dispatch, x after the fp8
  // round trip (core/reference/fp8.h). The shared expert always sees x itself.
  const std::vector<bf16>* routedX = nullptr;
};

struct CombineShape {
  int tokens = 0;
  int hidden = 0;
  int topk = 0;
  int localExperts = 0;
  bool sharedExpert = false;
  // Relative rounding error of an intermediate partial sum that crosses the wire in a
  // narrower type: 0 for fp32 partials, 2^-8 (bf16's unit roundoff, round to nearest) for
  // bf16 partials (combine.partial_dtype). Each server's partial p_S is rounded once, so
  // the sum moves by at most 2^-8 * sum_S |p_S| <= 2^-8 * sum of the terms' magnitudes.
  float partialRounding = 0.0f;
};

// The shared expert's output for one row: bf16(a_s x + b_s), a fixed "expert" of its own.
void sharedExpertRow(const bf16* x, bf16* y, int hidden);

// One rank's combine output [BS*H], and per element the bound used by the tolerance check:
// 2^-7 |sum| (one bf16 ulp: both sides round once) + (2^-16 + partialRounding) * sum of the
// terms' magnitudes (fp32 summation in another order, plus rounded partials if any).
struct CombineReference {
  std::vector<bf16> out;
  std::vector<float> bound;
  std::vector<float> sum;  // the fp32 sum before rounding: what CombineAddRmsNorm consumes
};
CombineReference combineReference(const CombineShape& shape, const CombineSource& src);

// The same for one token t, into rows of H elements: each expert row is computed once and
// feeds both the sum and the bound, so a checker can walk a rank token by token without
// holding its whole reference. `y` is scratch for one row.
void combineReferenceRow(const CombineShape& shape, const CombineSource& src, int t, float* sum,
                         bf16* out, float* bound, bf16* y);

// CombineAddRmsNorm: x_out = combine + residual; rstd = 1/sqrt(mean(x_out^2) + eps);
// y = x_out * rstd * gamma. x_out is kept in fp32 for the norm and written as bf16.
struct AddRmsNormResult {
  std::vector<bf16> y;      // [BS*H]
  std::vector<float> rstd;  // [BS]
  std::vector<bf16> xOut;   // [BS*H]
};
float rmsNormGamma(int h);
AddRmsNormResult addRmsNormReference(const std::vector<float>& combined /*fp32 [BS*H]*/,
                                     const std::vector<bf16>& residual, int tokens, int hidden,
                                     float eps);

// MoeDistributeCombine on its real inputs, for all ranks at once: expandX[d] [A_d*H] holds the
// expert outputs on rank d, expandIdx[d] [A_d*3] each row's (source rank, token, k slot) as
// dispatch wrote it; weights[s] [BS*K] are rank s's expert_scales; sharedX[s] [BS*H] (empty =
// none) a shared expert's output. out[s][t] = bf16(sum over k, in k order, of
// w[s,t,k] * row(s,t,k) (+ shared)), in fp32: the same order as combineReference, so on the
// rows expertsReference produces it equals combineReference bit for bit. A slot without a
// row (pruned) adds nothing. The caller validates indices (core/op_io does).
std::vector<std::vector<bf16>> combineExpandedReference(
    int tokens, int hidden, int topk, const std::vector<std::vector<bf16>>& expandX,
    const std::vector<std::vector<std::int32_t>>& expandIdx,
    const std::vector<std::vector<float>>& weights, const std::vector<std::vector<bf16>>& sharedX);

}  // namespace moe
