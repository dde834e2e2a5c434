#include "core/machine/pair_counts.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

namespace {

// Against std::map: every pair keeps its own count through the table's growth, including
// pairs that share a half (many resources with one narrowest resource) and counts back at 0.
TEST(PairCounts, EveryPairKeepsItsOwnCountThroughGrowth) {
  moe::PairCounts table;
  std::map<std::pair<int, int>, int> reference;
  for (int round = 0; round < 3; ++round) {
    for (int a = 0; a < 300; ++a) {
      for (int b : {0, 1, 7, a % 13, 4096 + a}) {
        const int delta = (a + b + round) % 3 == 0 ? -1 : 1;
        table[{a, b}] += delta;
        reference[{a, b}] += delta;
      }
    }
  }
  for (const auto& [key, count] : reference)
    EXPECT_EQ(table[key], count) << key.first << "," << key.second;
  EXPECT_EQ((table[{12345, 678}]), 0);  // a new pair starts at zero
}

}  // namespace
