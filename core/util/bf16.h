#pragma once
// bf16 stored as uint16 bit patterns. Arithmetic happens in fp32; rounding to bf16 is
// round-to-nearest-even, with NaN kept quiet, exactly as the AI core's cast does.

#include <bit>
#include <cstdint>

namespace moe {

using bf16 = std::uint16_t;

inline float bf16ToFloat(bf16 v) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(v) << 16);
}

// Written as a select rather than an early return so that loops over rows vectorize.
inline bf16 floatToBf16(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);
  const std::uint32_t quietNan = u | 0x00400000u;
  return static_cast<bf16>((((u & 0x7fffffffu) > 0x7f800000u) ? quietNan : rounded) >> 16);
}

}  // namespace moe
