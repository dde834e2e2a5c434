#include "core/reference/dispatch_reference.h"

namespace moe {

std::vector<DispatchOutput> dispatchReference(const DispatchShape& sh,
                                              const std::vector<DispatchSource>& src,
                                              bool materializeRows) {
  const int P = sh.localExperts, K = sh.topk, H = sh.hidden;
  std::vector<DispatchOutput> out(sh.ranks);
  for (int d = 0; d < sh.ranks; ++d) {
    DispatchOutput& o = out[d];
    o.expertTokenNums.assign(P, 0);
    o.offsets.assign(static_cast<std::size_t>(P) * sh.ranks, 0);
    o.lengths.assign(static_cast<std::size_t>(P) * sh.ranks, 0);
    for (int le = 0; le < P; ++le) {
      const int instance = d * P + le;
      for (int s = 0; s < sh.ranks; ++s) {
        o.offsets[le * sh.ranks + s] = static_cast<std::int32_t>(o.rows());
        for (int t = 0; t < sh.tokens; ++t)
          for (int k = 0; k < K; ++k) {
            const std::size_t i = static_cast<std::size_t>(t) * K + k;
            if (!src[s].mask[i] || src[s].ids[i] != instance) continue;
            if (materializeRows && !src[s].x.empty())
              o.expandX.insert(o.expandX.end(),
                               src[s].x.begin() + static_cast<std::ptrdiff_t>(t) * H,
                               src[s].x.begin() + static_cast<std::ptrdiff_t>(t + 1) * H);
            o.expandScales.push_back(src[s].weights[i]);
            o.expandIdx.insert(o.expandIdx.end(), {s, t, k});
            ++o.lengths[le * sh.ranks + s];
            ++o.expertTokenNums[le];
          }
      }
    }
  }
  return out;
}

ExpertCoefficients expertCoefficients(int g) {
  // Small, distinct, exactly representable coefficients so outputs stay checkable.
  return ExpertCoefficients{1.0f + static_cast<float>(g % 7) * 0.125f,
                            static_cast<float>(g % 5) * 0.0625f - 0.125f};
}

// The experts' rows are most of a full-payload run's arithmetic (the kernel, its check and
// the combine's reference each apply them): an AVX2 copy does 8 lanes instead of SSE2's 4.
// Same operations in the same order, so the same bits (no FMA: a * x + b rounds twice).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void expertRow(const ExpertCoefficients& c, const bf16* x, bf16* y, int hidden) {
  for (int h = 0; h < hidden; ++h) y[h] = floatToBf16(c.a * bf16ToFloat(x[h]) + c.b);
}

std::vector<bf16> expertsReference(const DispatchOutput& r, int rank, int P, int H,
                                   const std::vector<int>& instanceLogical) {
  std::vector<bf16> y(r.expandX.size());
  for (int le = 0; le < P; ++le) {
    const ExpertCoefficients c =
        expertCoefficients(instanceLogical[static_cast<std::size_t>(rank * P + le)]);
    const std::int64_t begin = r.offsets[le * (r.offsets.size() / P)];
    const std::int64_t end = begin + r.expertTokenNums[le];
    for (std::int64_t row = begin; row < end; ++row)
      expertRow(c, &r.expandX[static_cast<std::size_t>(row) * H],
                &y[static_cast<std::size_t>(row) * H], H);
  }
  return y;
}

}  // namespace moe
