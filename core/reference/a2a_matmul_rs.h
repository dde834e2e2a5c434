#pragma once
// AlltoAll-Matmul-ReduceScatter (DESIGN.md §3.6, seed 001): shapes, validation, seeded inputs
// and the golden reference. The emulated kernels are in a2a_matmul_rs_kernel.{h,cpp}.
//
// Data layout, with r ranks, global A[M, K] and W[K, N] (fp16, row-major):
//   rank i holds A_i = A[i*M/r : (i+1)*M/r, :]          shape [M/r, K]   (sequence parallel)
//            and W_i = W[i*K/r : (i+1)*K/r, :]          shape [K/r, N]   (tensor parallel)
//   all-to-all: rank i sends block A_i[:, j*K/r : (j+1)*K/r] to rank j, which stacks the r
//     blocks it receives along M in source order, giving A'_j = A[:, K-slice j], [M, K/r];
//   matmul:     P_j = A'_j . W_j, [M, N] in fp32 (a partial sum over K-slice j);
//   reduce-scatter: O_i = sum over j of P_j[i*M/r : (i+1)*M/r, :], rounded to fp16, [M/r, N].
// So O_i is rows i*M/r.. of A.W, which is what the reference computes directly.
//
// Tiling: the all-to-all moves "units" of tile_m rows x K/r columns; the matmul computes
// output tiles of tile_m x tile_n, stepping over K/r in tile_k chunks; N need not be a
// multiple of tile_n (the last column tile is narrower). W_i is stored pre-packed in
// column-tile panels (see packWeights), as device weights are laid out offline.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/machine/hardware_profile.h"
#include "core/scenario/scenario.h"
#include "core/util/fp16.h"

namespace moe {

struct A2aMatmulShape {
  int ranks = 8;
  int m = 512, n = 768, k = 4096;
  int tileM = 32, tileN = 128, tileK = 128;
  int stages = 8;

  int rowsPerRank() const { return m / ranks; }  // M/r
  int kPerRank() const { return k / ranks; }     // K/r
  int blocksPerRank() const { return rowsPerRank() / tileM; }
  int units() const { return ranks * blocksPerRank(); }  // a2a units each rank receives
  int nTiles() const { return (n + tileN - 1) / tileN; }
  int kChunks() const { return kPerRank() / tileK; }
  int tileWidth(int nt) const { return nt + 1 < nTiles() ? tileN : n - nt * tileN; }
};

A2aMatmulShape shapeFromWorkload(const WorkloadConfig& w);

// Refuses a shape the kernel cannot run, naming the field ("workload.m", ...):
// positive sizes, M and K divisible by r, tile_m | M/r, tile_k | K/r and a multiple of 16,
// tile_n <= N, tiles that fit L1,
// L0A/L0B/L0C and UB, STAGES in 1..8, enough cores, and a bound on the total data.
void validateA2aMatmul(const A2aMatmulShape& s, const HardwareProfile& hw);

struct A2aMatmulInputs {
  A2aMatmulShape shape;
  std::vector<std::vector<fp16>> a;  // per rank, [M/r, K]
  std::vector<std::vector<fp16>> w;  // per rank, [K/r, N]
};

// fp16 values uniform in [-1, 1) from Rng streams derived from `seed` and the rank.
A2aMatmulInputs generateA2aMatmulInputs(const A2aMatmulShape& s, std::uint64_t seed);

// W_i re-laid as nTiles panels of [K/r, tile_n] (the last padded with zeros), so that a
// tile_k x tile_n chunk is one contiguous DMA.
std::vector<fp16> packWeights(const A2aMatmulShape& s, const std::vector<fp16>& w);

// Golden reference: plain GEMM of the global A and W with fp32 accumulation in k order,
// rows of rank i rounded to fp16. Also returns sum_k |a.w| per element for the tolerance.
struct A2aMatmulReference {
  std::vector<std::vector<fp16>> out;         // per rank, [M/r, N]
  std::vector<std::vector<float>> exact;      // per rank, fp32 before rounding
  std::vector<std::vector<float>> magnitude;  // per rank, sum_k |a_ik w_kj|
};
A2aMatmulReference a2aMatmulReference(const A2aMatmulInputs& in);

// The reference of one set of inputs, computed on first use and then kept: the workbench
// checks every fused run it finishes (a lesson's, a re-run's) against the same inputs, and
// the GEMM was the largest part of each check. Safe to share between threads.
class A2aReferenceOnce {
 public:
  explicit A2aReferenceOnce(std::shared_ptr<const A2aMatmulInputs> in) : in_(std::move(in)) {}
  const A2aMatmulReference& get() const {
    std::call_once(once_, [this] { ref_ = a2aMatmulReference(*in_); });
    return *ref_;
  }

 private:
  std::shared_ptr<const A2aMatmulInputs> in_;
  mutable std::once_flag once_;
  mutable std::optional<A2aMatmulReference> ref_;
};

// Tolerance between an emulated output and the reference (fp32 summation order differs:
// per-slice sums are added across ranks; fp16 output rounding can then flip one ulp):
//   |got - exact| <= 2^-10 |exact| + 1e-3 * sum_k |a_ik w_kj| + 1e-6
// Returns "" when every element is within it, else the first element that is not.
std::string compareWithReference(const A2aMatmulReference& ref,
                                 const std::vector<std::vector<fp16>>& got);

}  // namespace moe
