// Rank 0's watch over MPI sweep ranks, on a clock the test drives: a rank that holds a point
// and stops being heard from is reported once past the timeout (given, or 10x the slowest
// point with a 60 s floor); heartbeats keep a slow rank alive; an idle rank is never silent.

#include "core/studies/sweep_rank_watch.h"

#include <gtest/gtest.h>

namespace moe {
namespace {

TEST(SweepRankWatch, AStoppedRankIsReportedOnceSilentPastTheGivenTimeout) {
  SweepRankWatch w(5.0);
  w.handedOut(1, 0, 0.0);
  w.handedOut(3, 7, 0.0);
  w.heard(1, 4.0);
  w.heard(3, 1.0);
  EXPECT_FALSE(w.silent(5.5).has_value());  // rank 3: 4.5 s since heard
  const auto s = w.silent(6.5);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rank, 3);
  EXPECT_EQ(s->point, 7u);
  EXPECT_EQ(s->message(), "rank 3 silent for 5 s on point 7");
}

TEST(SweepRankWatch, HeartbeatsKeepASlowPointAlive) {
  SweepRankWatch w(5.0);
  w.handedOut(2, 4, 0.0);
  for (double t = 1; t <= 100; t += 1) {
    w.heard(2, t);
    EXPECT_FALSE(w.silent(t + 0.5).has_value()) << t;
  }
}

TEST(SweepRankWatch, AnIdleRankIsNeverSilent) {
  SweepRankWatch w(5.0);
  w.handedOut(1, 0, 0.0);
  w.finished(1, 2.0);
  EXPECT_FALSE(w.silent(1000.0).has_value());
}

TEST(SweepRankWatch, TheDefaultIsTenTimesTheSlowestPointWithASixtySecondFloor) {
  SweepRankWatch w(std::nullopt);
  EXPECT_EQ(w.timeoutSeconds(), 60.0);
  w.handedOut(1, 0, 0.0);
  w.finished(1, 2.0);  // 2 s point: 10 x 2 = 20 s, under the floor
  EXPECT_EQ(w.timeoutSeconds(), 60.0);
  w.handedOut(1, 1, 10.0);
  w.finished(1, 20.0);  // 10 s point
  EXPECT_EQ(w.timeoutSeconds(), 100.0);
  w.handedOut(2, 2, 20.0);
  EXPECT_FALSE(w.silent(119.0).has_value());
  ASSERT_TRUE(w.silent(121.0).has_value());
  EXPECT_EQ(w.silent(121.0)->message(), "rank 2 silent for 101 s on point 2");
}

}  // namespace
}  // namespace moe
