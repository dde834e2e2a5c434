// The fill's division-free share test: it may only say "at least the key" when the
// correctly rounded quotient is, and it must say so for shares clear of the key (else the
// fill divides every time and the test is pointless).

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/machine/share_bound.h"

using namespace moe;

namespace {

// Capacities in bytes per picosecond span 1e-3 (8 Gb/s) to 1 (8 Tb/s); a share is a part
// of one, over up to a few thousand flows.
TEST(ShareBound, NeverClaimsAShareThatRoundsBelowTheKey) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> capacity(1e-3, 1.0);
  std::uniform_int_distribution<int> flowCount(1, 4096);
  std::uniform_int_distribution<int> ulps(-8, 8);
  int claimed = 0, keyJustAbove = 0;
  for (int i = 0; i < 2'000'000; ++i) {
    const double left = capacity(rng) * std::ldexp(1.0, -(i % 12));
    const double flows = flowCount(rng);
    // Keys within a few ulps of the true quotient: where a rounding decides.
    double key = left / flows;
    for (int k = ulps(rng); k != 0; k += k > 0 ? -1 : 1)
      key = std::nextafter(key, k > 0 ? INFINITY : 0.0);
    const bool atLeast = shareIsAtLeast(left, flows, key);
    if (atLeast) ++claimed;
    if (key > left / flows) ++keyJustAbove;
    if (atLeast) {
      ASSERT_GE(left / flows, key) << left << " / " << flows << " vs " << key;
    }
  }
  // Both answers occur: keys below the quotient by enough are claimed, keys above are not.
  EXPECT_GT(claimed, 0);
  EXPECT_GT(keyJustAbove, 0);
}

TEST(ShareBound, ClaimsSharesThatClearTheKeyByMoreThanARounding) {
  // A share that rose by one part in a billion (the fill's usual case: a flow froze at a
  // smaller share elsewhere) is claimed without a division.
  EXPECT_TRUE(shareIsAtLeast(0.5 * (1 + 1e-9), 16, 0.5 / 16));
  EXPECT_TRUE(shareIsAtLeast(0.9, 3, 0.25));
  EXPECT_TRUE(shareIsAtLeast(0.0, 5, 0.0));  // an exhausted resource against a zero key
  // The exact quotient is not claimed (it needs the division to tell), nor one below it.
  EXPECT_FALSE(shareIsAtLeast(0.5, 16, 0.5 / 16));
  EXPECT_FALSE(shareIsAtLeast(0.3, 7, std::nextafter(0.3 / 7, 1.0)));
}

}  // namespace
