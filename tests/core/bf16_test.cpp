// The fp32 -> bf16 cast: round-to-nearest-even, NaN kept quiet. Checked against a plain
// reading of the rule (decide on the bits dropped, then on the kept lowest bit) over the
// special values and every 2^-16th of the bit patterns.

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "core/util/bf16.h"

namespace {

std::uint16_t castByTheRule(std::uint32_t u) {
  const bool nan = (u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0;
  if (nan) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  const std::uint32_t kept = u >> 16, dropped = u & 0xffffu;
  const bool up = dropped > 0x8000u || (dropped == 0x8000u && (kept & 1u) != 0);
  return static_cast<std::uint16_t>(kept + (up ? 1u : 0u));
}

}  // namespace

TEST(Bf16, CastMatchesRoundToNearestEvenWithQuietNan) {
  const std::uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                    0x7f7fffffu, 0x7f7f8000u, 0x7f7f7fffu, 0x00008000u,
                                    0x00018000u, 0x7f800001u, 0x7fc00000u, 0xffffffffu,
                                    0x3f808000u, 0x3f818000u, 0x3f80ffffu, 0x00000001u};
  for (std::uint32_t u : specials)
    EXPECT_EQ(moe::floatToBf16(std::bit_cast<float>(u)), castByTheRule(u)) << std::hex << u;
  // Every high half, with low halves that sit on, just below and just above the tie.
  const std::uint32_t lows[] = {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu};
  for (std::uint32_t hi = 0; hi < 0x10000u; ++hi)
    for (std::uint32_t lo : lows) {
      const std::uint32_t u = hi << 16 | lo;
      ASSERT_EQ(moe::floatToBf16(std::bit_cast<float>(u)), castByTheRule(u)) << std::hex << u;
    }
}
