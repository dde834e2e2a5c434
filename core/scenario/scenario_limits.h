#pragma once
// The per-field bounds the scenario reader and validateScenario share (the other ranges are
// spelled out where each field is checked).

#include <cstdint>

namespace moe {

inline constexpr int kMaxRanks = 768;
inline constexpr int kMaxPhysicalExperts = 1024;
inline constexpr std::int64_t kMaxChunkBytes = std::int64_t{64} << 20;
inline constexpr std::uint64_t kMaxPayloadBytes = std::uint64_t{8} << 30;
// Workload m, n, k and tiles; the operator bounds their product.
inline constexpr int kMaxMatrixDim = 65536;

}  // namespace moe
