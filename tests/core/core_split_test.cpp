#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "core/plan/core_split.h"

using moe::CoreRange;
using moe::splitContiguous;

TEST(CoreSplit, FirstRemainderCoresTakeOneExtraElement) {
  // 10 = 4 cores * 2 + 2: cores 0 and 1 get 3, cores 2 and 3 get 2.
  const auto r = splitContiguous(10, 4);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], (CoreRange{0, 3}));
  EXPECT_EQ(r[1], (CoreRange{3, 6}));
  EXPECT_EQ(r[2], (CoreRange{6, 8}));
  EXPECT_EQ(r[3], (CoreRange{8, 10}));
}

TEST(CoreSplit, CoresBeyondTotalGetEmptyRangesAtTheEnd) {
  const auto r = splitContiguous(2, 5);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], (CoreRange{0, 1}));
  EXPECT_EQ(r[1], (CoreRange{1, 2}));
  for (int c = 2; c < 5; ++c) {
    EXPECT_EQ(r[c].size(), 0) << "core " << c;
    EXPECT_EQ(r[c].begin, 2) << "empty ranges sit at the end, not at 0";
  }
}

TEST(CoreSplit, ZeroElementsGiveAllEmptyRanges) {
  const auto r = splitContiguous(0, 3);
  ASSERT_EQ(r.size(), 3u);
  for (const auto& c : r) EXPECT_EQ(c, (CoreRange{0, 0}));
}

TEST(CoreSplit, OneCoreTakesEverything) {
  const auto r = splitContiguous(4096, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (CoreRange{0, 4096}));
}

TEST(CoreSplit, RandomSplitsTileTheRangeWithSizesDifferingByAtMostOne) {
  std::mt19937_64 rng(20240517);
  for (int iter = 0; iter < 500; ++iter) {
    const int64_t total = std::uniform_int_distribution<int64_t>(0, 100000)(rng);
    const int cores = std::uniform_int_distribution<int>(1, 48)(rng);
    const auto r = splitContiguous(total, cores);
    ASSERT_EQ(r.size(), static_cast<size_t>(cores));
    int64_t next = 0;
    for (int c = 0; c < cores; ++c) {
      ASSERT_EQ(r[c].begin, next) << "total " << total << " cores " << cores;
      const int64_t want = total / cores + (c < total % cores ? 1 : 0);
      ASSERT_EQ(r[c].size(), want) << "core " << c;
      next = r[c].end;
    }
    ASSERT_EQ(next, total);
  }
}

TEST(CoreSplit, InvalidArgumentsAreProgrammingErrors) {
  EXPECT_THROW(splitContiguous(10, 0), std::invalid_argument);
  EXPECT_THROW(splitContiguous(10, -2), std::invalid_argument);
  EXPECT_THROW(splitContiguous(-1, 4), std::invalid_argument);
}
