// ringOccupancyOverTime (what A/B Compare plots): the bytes held in all rings, from the
// observer's pointer samples. Checked against the rings' own statistics on a small
// streaming layer, and the reduction keeps the peak.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/observe/ring_occupancy.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"

namespace moe {
namespace {

Scenario smallStreaming() {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 2;
  s.hardware.cardsPerServer = 2;
  s.model.tokensPerRank = 24;
  s.model.hidden = 256;
  s.model.topk = 4;
  s.model.experts = 16;
  s.model.intermediate = 64;
  s.rings.setBoth(&RingTiling::chunkBytes, 4096);
  s.rings.setBoth(&RingTiling::queueChunks, 2);  // shallow: the rings fill up
  s.rings.setBoth(&RingTiling::senderCores, 2);
  s.rings.setBoth(&RingTiling::forwarderCores, 2);
  s.rings.setBoth(&RingTiling::receiverCores, 2);
  s.dispatchImpl = Design::Streaming;
  return s;
}

TEST(RingOccupancy, FollowsTheRingsAndKeepsThePeakWhenReduced) {
  const ResolvedScenario rs = ResolvedScenario::resolve(smallStreaming());
  auto run = makeLayerRun(rs, Design::Streaming);
  run->runToEnd();
  ASSERT_TRUE(run->finished());
  const Emulation& emu = run->emulation();
  ASSERT_EQ(emu.observer().ringSamples().dropped(), 0u);
  const auto full = ringOccupancyOverTime(emu.observer(), 0);
  ASSERT_GT(full.size(), 10u);
  std::int64_t peak = 0, capacity = 0, peakSum = 0;
  for (const auto& r : emu.rings()) {
    capacity += r.capacity();
    peakSum += r.stats().peakOccupancy;
  }
  for (std::size_t i = 0; i < full.size(); ++i) {
    EXPECT_GE(full[i].bytes, 0);
    EXPECT_LE(full[i].bytes, capacity);
    if (i) {
      EXPECT_GT(full[i].time, full[i - 1].time);  // one point per time
    }
    peak = std::max(peak, full[i].bytes);
  }
  // Something was held, and never more than every ring at its own peak at once (a ring's
  // statistic counts its producer's local tail, which the published tail never passes).
  EXPECT_GT(peak, 0);
  EXPECT_LE(peak, peakSum);
  EXPECT_EQ(full.back().bytes, 0);  // every ring drained at the end

  const auto reduced = ringOccupancyOverTime(emu.observer(), 50);
  EXPECT_LE(reduced.size(), 51u);
  std::int64_t reducedPeak = 0;
  for (const auto& p : reduced) reducedPeak = std::max(reducedPeak, p.bytes);
  EXPECT_EQ(reducedPeak, peak);
  EXPECT_EQ(reduced.back().time, full.back().time);
  EXPECT_EQ(reduced.back().bytes, 0);
}

}  // namespace
}  // namespace moe
