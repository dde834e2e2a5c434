#include "core/reference/a2a_matmul_rs.h"

#include <cmath>

#include "core/util/error.h"
#include "core/util/rng.h"

namespace moe {

A2aMatmulShape shapeFromWorkload(const WorkloadConfig& w) {
  A2aMatmulShape s;
  s.ranks = w.ranks;
  s.m = w.m;
  s.n = w.n;
  s.k = w.k;
  s.tileM = w.tileM;
  s.tileN = w.tileN;
  s.tileK = w.tileK;
  s.stages = w.stages;
  return s;
}

void validateA2aMatmul(const A2aMatmulShape& s, const HardwareProfile& hw) {
  const auto str = [](auto v) { return std::to_string(v); };
  require(s.ranks >= 2 && s.ranks <= 768, "workload.ranks",
          "must be in [2, 768], got " + str(s.ranks));
  // A cluster is whole servers, or part of one: the machine is built from the rank count.
  require(s.ranks <= hw.cardsPerServer || s.ranks % hw.cardsPerServer == 0, "workload.ranks",
          "must be <= cards_per_server (" + str(hw.cardsPerServer) + ") or a multiple of it, got " +
              str(s.ranks));
  for (auto [v, path] : {std::pair{s.m, "workload.m"},
                         {s.n, "workload.n"},
                         {s.k, "workload.k"},
                         {s.tileM, "workload.tile_m"},
                         {s.tileN, "workload.tile_n"},
                         {s.tileK, "workload.tile_k"}})
    require(v >= 1 && v <= 65536, path, "must be in [1, 65536], got " + str(v));
  require(s.stages >= 1 && s.stages <= 8, "workload.stages",
          "must be in [1, 8], got " + str(s.stages));
  require(s.m % s.ranks == 0, "workload.m",
          "must be divisible by workload.ranks (" + str(s.ranks) + "), got " + str(s.m));
  require(s.k % s.ranks == 0, "workload.k",
          "must be divisible by workload.ranks (" + str(s.ranks) + "), got " + str(s.k));
  require(s.rowsPerRank() % s.tileM == 0, "workload.tile_m",
          "must divide M/r = " + str(s.rowsPerRank()) +
              " (an all-to-all unit is tile_m rows of one rank), got " + str(s.tileM));
  require(s.kPerRank() % s.tileK == 0, "workload.tile_k",
          "must divide K/r = " + str(s.kPerRank()) + ", got " + str(s.tileK));
  require(s.tileK % 16 == 0, "workload.tile_k",
          "must be a multiple of 16 (the pusher stacks tile_k x 2 B rows in UB, which must be 32-B "
          "aligned), got " +
              str(s.tileK));
  require(s.tileN <= s.n, "workload.tile_n",
          "must be <= workload.n (" + str(s.n) + "), got " + str(s.tileN));
  // Cube buffers: A chunk in L0A, W chunk in L0B (fp16), the fp32 output tile in L0C.
  const std::int64_t tm = s.tileM, tn = s.tileN, tk = s.tileK;
  require(
      tm * tk * 2 <= hw.l0aBytes, "workload.tile_k",
      "tile_m x tile_k x 2 B = " + str(tm * tk * 2) + " must fit L0A (" + str(hw.l0aBytes) + " B)");
  require(
      tk * tn * 2 <= hw.l0bBytes, "workload.tile_n",
      "tile_k x tile_n x 2 B = " + str(tk * tn * 2) + " must fit L0B (" + str(hw.l0bBytes) + " B)");
  require(
      tm * tn * 4 <= hw.l0cBytes, "workload.tile_m",
      "tile_m x tile_n x 4 B = " + str(tm * tn * 4) + " must fit L0C (" + str(hw.l0cBytes) + " B)");
  // L1: double-buffered A and W chunks plus the fp32 tile staged for the write-out.
  const std::int64_t l1 = 2 * (tm * tk + tk * tn) * 2 + tm * tn * 4;
  require(l1 <= hw.l1Bytes, "workload.tile_n",
          "2 x (tile_m x tile_k + tile_k x tile_n) x 2 B + tile_m x tile_n x 4 B = " + str(l1) +
              " must fit L1 (" + str(hw.l1Bytes) + " B)");
  // UB: the reducer holds an fp32 accumulator, one incoming fp32 tile and the fp16 result;
  // the all-to-all pusher double-buffers tile_m x tile_k fp16.
  const std::int64_t reducerUb = tm * tn * 8 + tm * ((tn * 2 + 31) / 32 * 32);
  require(reducerUb <= hw.ubBytes, "workload.tile_n",
          "tile_m x tile_n x 8 B + tile_m x 32-B-aligned (tile_n x 2 B) = " + str(reducerUb) +
              " must fit UB (" + str(hw.ubBytes) + " B)");
  require(tm * tk * 4 <= hw.ubBytes, "workload.tile_k",
          "2 x tile_m x tile_k x 2 B = " + str(tm * tk * 4) + " must fit UB (" + str(hw.ubBytes) +
              " B)");
  require(hw.aivCores >= 3, "hardware.overrides.aiv_cores",
          "the workload needs >= 3 AIV cores per card");
  // Bounds that keep a run in memory and in seconds: the host multiplies every element.
  const double flops = 2.0 * s.m * s.n * static_cast<double>(s.k);
  require(flops <= 4e11, "workload",
          "2 x m x n x k = " + str(flops) + " FLOPs is more than the 4e11 the host can check");
  const double bytes = static_cast<double>(s.m) * s.n * 4 * 3 + static_cast<double>(s.m) * s.k * 4 +
                       static_cast<double>(s.k) * s.n * 2;
  require(bytes <= 8.0 * (1 << 30), "workload",
          "needs " + str(bytes) + " B of tensors and workspace, more than 8 GiB");
}

A2aMatmulInputs generateA2aMatmulInputs(const A2aMatmulShape& s, std::uint64_t seed) {
  A2aMatmulInputs in;
  in.shape = s;
  for (int r = 0; r < s.ranks; ++r) {
    Rng ra(Rng::derive(seed, 0xA000u + static_cast<std::uint64_t>(r)));
    Rng rw(Rng::derive(seed, 0xB000u + static_cast<std::uint64_t>(r)));
    std::vector<fp16> a(static_cast<std::size_t>(s.rowsPerRank()) * s.k);
    std::vector<fp16> w(static_cast<std::size_t>(s.kPerRank()) * s.n);
    for (auto& v : a) v = floatToFp16(static_cast<float>(2.0 * ra.uniform() - 1.0));
    for (auto& v : w) v = floatToFp16(static_cast<float>(2.0 * rw.uniform() - 1.0));
    in.a.push_back(std::move(a));
    in.w.push_back(std::move(w));
  }
  return in;
}

std::vector<fp16> packWeights(const A2aMatmulShape& s, const std::vector<fp16>& w) {
  const int kr = s.kPerRank();
  std::vector<fp16> p(static_cast<std::size_t>(s.nTiles()) * kr * s.tileN, 0);
  for (int t = 0; t < s.nTiles(); ++t)
    for (int k = 0; k < kr; ++k)
      for (int c = 0; c < s.tileWidth(t); ++c)
        p[(static_cast<std::size_t>(t) * kr + k) * s.tileN + c] =
            w[static_cast<std::size_t>(k) * s.n + t * s.tileN + c];
  return p;
}

A2aMatmulReference a2aMatmulReference(const A2aMatmulInputs& in) {
  const A2aMatmulShape& s = in.shape;
  const int mr = s.rowsPerRank(), kr = s.kPerRank();
  A2aMatmulReference ref;
  std::vector<float> wrow(static_cast<std::size_t>(s.n));
  for (int i = 0; i < s.ranks; ++i) {
    std::vector<float> acc(static_cast<std::size_t>(mr) * s.n, 0.0f), mag(acc.size(), 0.0f);
    for (int row = 0; row < mr; ++row) {
      float* o = &acc[static_cast<std::size_t>(row) * s.n];
      float* g = &mag[static_cast<std::size_t>(row) * s.n];
      for (int k = 0; k < s.k; ++k) {
        const float a = fp16ToFloat(in.a[i][static_cast<std::size_t>(row) * s.k + k]);
        const fp16* w = &in.w[k / kr][static_cast<std::size_t>(k % kr) * s.n];
        for (int c = 0; c < s.n; ++c) {
          const float p = a * fp16ToFloat(w[c]);
          o[c] += p;
          g[c] += std::fabs(p);
        }
      }
    }
    std::vector<fp16> out(acc.size());
    for (std::size_t e = 0; e < acc.size(); ++e) out[e] = floatToFp16(acc[e]);
    ref.out.push_back(std::move(out));
    ref.exact.push_back(std::move(acc));
    ref.magnitude.push_back(std::move(mag));
  }
  return ref;
}

std::string compareWithReference(const A2aMatmulReference& ref,
                                 const std::vector<std::vector<fp16>>& got) {
  if (got.size() != ref.exact.size())
    return std::to_string(got.size()) + " ranks of output, reference has " +
           std::to_string(ref.exact.size());
  for (std::size_t r = 0; r < got.size(); ++r) {
    if (got[r].size() != ref.exact[r].size())
      return "rank " + std::to_string(r) + ": " + std::to_string(got[r].size()) +
             " elements, reference has " + std::to_string(ref.exact[r].size());
    for (std::size_t e = 0; e < got[r].size(); ++e) {
      const double want = ref.exact[r][e], have = fp16ToFloat(got[r][e]);
      const double tol = std::ldexp(std::fabs(want), -10) + 1e-3 * ref.magnitude[r][e] + 1e-6;
      if (!(std::fabs(have - want) <= tol))
        return "rank " + std::to_string(r) + " element " + std::to_string(e) + ": got " +
               std::to_string(have) + ", reference " + std::to_string(want) + " (tolerance " +
               std::to_string(tol) + ")";
    }
  }
  return {};
}

}  // namespace moe
