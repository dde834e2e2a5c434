// The sweep's worker count: as many points at once as the memory left holds, by the points'
// own memory estimates, never fewer than one and never more than asked for.

#include "core/studies/sweep_workers.h"

#include <gtest/gtest.h>

#include "core/studies/sweep_point.h"

namespace moe {
namespace {

using nlohmann::json;

// The default layer over tokens_per_rank 16 and 128; 64 AIV sender cores is invalid there.
SweepSpec tokensSweep() {
  return sweepFromJson({{"axes",
                         {{{"field", "model.tokens_per_rank"}, {"values", {16, 128}}},
                          {{"field", "rings.sender_cores"}, {"values", {4, 64}}}}}},
                       ".");
}

TEST(SweepWorkers, AnInvalidPointNeedsNoMemoryAndALargerModelNeedsMore) {
  const SweepSpec s = tokensSweep();
  EXPECT_GT(sweepPointMemory(s, 0), 0u);
  EXPECT_EQ(sweepPointMemory(s, 1), 0u);  // sender_cores 64: not run
  EXPECT_GT(sweepPointMemory(s, 2), sweepPointMemory(s, 0));
}

TEST(SweepWorkers, FewerWorkersRunWhenTheLargestPointTimesJobsDoesNotFit) {
  const SweepSpec s = tokensSweep();
  const std::vector<std::size_t> points{0, 1, 2, 3};
  const std::uint64_t need = sweepPointMemory(s, 2) + kWorkerThreadOverheadBytes;

  SweepWorkers w = planSweepWorkers(s, points, 2, 2 * need);
  EXPECT_EQ(w.requested, 2u);
  EXPECT_EQ(w.workers, 2u);
  EXPECT_FALSE(w.reduced());
  EXPECT_EQ(w.perPointBytes, need);

  w = planSweepWorkers(s, points, 2, 2 * need - 1);
  EXPECT_EQ(w.workers, 1u);
  EXPECT_TRUE(w.reduced());
  EXPECT_EQ(w.note().rfind("using 1 workers instead of 2: each point needs ~", 0), 0u) << w.note();

  w = planSweepWorkers(s, points, 4, 3 * need);
  EXPECT_EQ(w.workers, 3u);
  // Never fewer than one: a point too large for the machine is refused by its own run.
  EXPECT_EQ(planSweepWorkers(s, points, 4, 0).workers, 1u);
  // Only the points still to run count: without point 2, the small one decides.
  w = planSweepWorkers(s, {0, 1}, 2, 2 * need - 1);
  EXPECT_EQ(w.perPointBytes, sweepPointMemory(s, 0) + kWorkerThreadOverheadBytes);
}

TEST(SweepWorkers, NeverMoreWorkersThanPointsOrThanAskedFor) {
  const SweepSpec s = tokensSweep();
  EXPECT_EQ(planSweepWorkers(s, {0}, 8, UINT64_MAX).workers, 1u);
  EXPECT_EQ(planSweepWorkers(s, {0, 1, 2, 3}, 3, UINT64_MAX).workers, 3u);
}

}  // namespace
}  // namespace moe
