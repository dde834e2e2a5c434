// IntervalUnion: the union of activity intervals the timeline measures overlap with.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/observe/interval_union.h"

using moe::IntervalUnion;
using moe::Time;

TEST(IntervalUnion, MergesOverlappingAndTouchingIntervalsInAnyOrder) {
  IntervalUnion u;
  u.add(10, 20);
  u.add(30, 40);
  u.add(20, 25);  // touches the first
  u.add(5, 12);   // overlaps it from the left
  u.add(50, 50);  // empty: ignored
  u.add(45, 41);  // reversed: ignored
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u.spans().begin()->first, 5);
  EXPECT_EQ(u.spans().begin()->second, 25);
  EXPECT_EQ(u.measure(), 20 + 10);
  u.add(0, 100);  // swallows everything
  EXPECT_EQ(u.size(), 1u);
  EXPECT_EQ(u.measure(), 100);
}

TEST(IntervalUnion, OverlapAndWindowedMeasure) {
  IntervalUnion comm, compute;
  comm.add(0, 10);
  comm.add(20, 30);
  compute.add(5, 25);
  EXPECT_EQ(comm.overlap(compute), 5 + 5);
  EXPECT_EQ(compute.overlap(comm), 10);
  EXPECT_EQ(comm.measureWithin(8, 22), 2 + 2);
  EXPECT_EQ(comm.measureWithin(10, 20), 0);
  EXPECT_EQ(IntervalUnion().overlap(comm), 0);
}

// Against a brute-force bitmap on random intervals.
TEST(IntervalUnion, MatchesABitmapOnRandomIntervals) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> start(0, 990), len(0, 30);
  IntervalUnion a, b;
  std::vector<bool> inA(1100), inB(1100);
  for (int i = 0; i < 300; ++i) {
    const int s = start(rng), e = s + len(rng);
    (i % 2 ? a : b).add(s, e);
    for (int t = s; t < e; ++t) (i % 2 ? inA : inB)[t] = true;
  }
  Time ma = 0, both = 0, window = 0;
  for (int t = 0; t < 1100; ++t) {
    ma += inA[t];
    both += inA[t] && inB[t];
    window += inA[t] && t >= 200 && t < 700;
  }
  EXPECT_EQ(a.measure(), ma);
  EXPECT_EQ(a.overlap(b), both);
  EXPECT_EQ(a.measureWithin(200, 700), window);
  for (auto it = a.spans().begin(); std::next(it) != a.spans().end(); ++it)
    EXPECT_LT(it->second, std::next(it)->first) << "spans stay disjoint and apart";
}
