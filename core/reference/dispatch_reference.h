#pragma once
// Golden reference for dispatch (DESIGN.md §3.3) and the experts (DESIGN.md §3.4): plain loops over
// host arrays, obviously correct, never called by the emulated kernels.

#include <cstdint>
#include <vector>

#include "core/util/bf16.h"

namespace moe {

// What one source rank holds going into dispatch.
struct DispatchSource {
  std::vector<bf16> x;             // [BS*H], empty when payload is "none"
  std::vector<std::int32_t> ids;   // [BS*K] physical instance ids after UpdateExpert
  std::vector<float> weights;      // [BS*K]
  std::vector<std::uint8_t> mask;  // [BS*K], 1 = keep (all ones without pruning)
};

struct DispatchShape {
  int ranks = 0;
  int tokens = 0;  // BS per rank
  int hidden = 0;
  int topk = 0;
  int localExperts = 0;  // physical instances per rank (placePerRank)
};

// One destination rank's received data, expert-major then source-rank-minor.
struct DispatchOutput {
  std::vector<bf16> expandX;                  // [A*H] (empty with payload "none")
  std::vector<float> expandScales;            // [A]
  std::vector<std::int32_t> expertTokenNums;  // [localExperts]
  std::vector<std::int32_t> offsets;          // [localExperts*R] row in expandX
  std::vector<std::int32_t> lengths;          // [localExperts*R]
  std::vector<std::int32_t> expandIdx;        // [A*3]: source rank, source token, k slot
  std::int64_t rows() const { return static_cast<std::int64_t>(expandScales.size()); }
  bool operator==(const DispatchOutput&) const = default;
};

// With materializeRows false, expandX is left empty: every row r is, by definition, the
// source row named by expandIdx[r], so large runs can check rows in place without holding
// a second copy of every received token.
std::vector<DispatchOutput> dispatchReference(const DispatchShape& shape,
                                              const std::vector<DispatchSource>& sources,
                                              bool materializeRows = true);

// Expert e's function: y = a_e * x + b_e in fp32, rounded once to bf16 (DESIGN.md §2).
struct ExpertCoefficients {
  float a;
  float b;
};
// Keyed by logical expert: every replica of an expert holds the same weights.
ExpertCoefficients expertCoefficients(int logicalExpert);

// The expert output of one row: y[h] = bf16(a * x[h] + b).
void expertRow(const ExpertCoefficients& c, const bf16* x, bf16* y, int hidden);

// Applies each row's expert to one rank's expandX: [A*H] -> [A*H].
// instanceLogical maps physical instance -> logical expert (rank * localExperts + le).
std::vector<bf16> expertsReference(const DispatchOutput& received, int rank, int localExperts,
                                   int hidden, const std::vector<int>& instanceLogical);

}  // namespace moe
