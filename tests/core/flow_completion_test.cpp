// Completion times of the incremental solver (core/machine/flow_network) against the plain
// fluid replay (core/reference/fluid_replay, a fresh max-min solve at every instant), on
// randomized transfer sets: every transfer completes, within 1 ps of the reference where
// the transfers are few, and within a few ps where a long chain of re-rates carries
// rounding along. The harness takes any plan, so another bandwidth model can be held to
// the same reference.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"
#include "core/reference/fluid_replay.h"
#include "flow_test_plans.h"

using namespace moe;
using namespace moe::flow_test;

namespace {

struct Difference {
  Time worst = 0;       // picoseconds
  std::size_t off = 0;  // transfers more than 1 ps off
};

// Replays `plan` through a FlowNetwork over `gbps` resources and compares each completion
// with the fluid reference.
Difference compare(const std::vector<double>& gbps, const std::vector<PlannedTransfer>& plan) {
  Simulator sim;
  FlowNetwork net(sim);
  std::vector<double> capacity;
  for (double g : gbps) capacity.push_back(net.resource(net.addResource("r", g)).capacity);
  const TransferReplay r(net, sim, plan);
  while (sim.step()) {
  }
  std::vector<FluidTransfer> fluid;
  for (const PlannedTransfer& t : plan) fluid.push_back({t.at, t.path, t.bytes});
  const std::vector<Time> want = fluidCompletionTimes(capacity, fluid);
  Difference d;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_GE(r.done()[i], plan[i].at) << "transfer " << i << " never completed";
    d.worst = std::max(d.worst, std::abs(r.done()[i] - want[i]));
    d.off += std::abs(r.done()[i] - want[i]) > 1 ? 1 : 0;
  }
  return d;
}

}  // namespace

TEST(FlowCompletionVsFluidReference, RandomPathsCompleteWithinOnePicosecond) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    const std::vector<double> gbps = fewBandwidths(rng);
    const int resources = static_cast<int>(gbps.size());
    std::vector<PlannedTransfer> plan;
    const int transfers = 20 + static_cast<int>(rng() % 80);
    for (int i = 0; i < transfers; ++i) {
      std::vector<int> path = randomPath(rng, resources);
      plan.push_back({static_cast<Time>(rng() % 4) * 500 * kNs, std::move(path),
                      static_cast<std::int64_t>(rng() % 8 == 0 ? 0 : 1024 + rng() % (1 << 20))});
    }
    EXPECT_LE(compare(gbps, plan).worst, 1) << "seed " << seed;
  }
}

// The emulator's shape: per card an HBM, NIC tx and rx, DMA ports; RDMA writes cross
// hbm -> tx -> rx -> hbm, local copies port -> hbm; every NIC saturated.
TEST(FlowCompletionVsFluidReference, AllToAllOverNicsCompletesWithinTheRounding) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const AllToAll shape{.transfers = 300};
    const std::vector<double> gbps = shape.bandwidths();
    const std::vector<PlannedTransfer> plan = shape.plan(rng);
    // Each solve rounds its rates (an ulp apart from a fresh solve's), and a completion
    // rounds up to a picosecond; an end one picosecond apart moves the next solve by as
    // much, so over a chain of hundreds of re-rates a few completions drift a few ps.
    const Difference d = compare(gbps, plan);
    EXPECT_LE(d.worst, 10) << "seed " << seed;
    EXPECT_LE(d.off, plan.size() / 20) << "seed " << seed;
  }
}

TEST(FluidReference, TextbookCompletions) {
  // 1 byte/ps shared by two transfers: 1000 bytes each end together at 2000 ps; a third one
  // starting at 500 ps slows both, and the first two then end when 1000 bytes have crossed.
  const std::vector<double> cap = {1.0};
  EXPECT_EQ(fluidCompletionTimes(cap, {{0, {0}, 1000}, {0, {0}, 1000}}),
            (std::vector<Time>{2000, 2000}));
  // 0..500: 250 each; 500..: thirds. Left 750 each -> 2250 ps later for the first two (at
  // 2750), while the third moves 750 by then and finishes its 250 left alone at 3000.
  EXPECT_EQ(fluidCompletionTimes(cap, {{0, {0}, 1000}, {0, {0}, 1000}, {500, {0}, 1000}}),
            (std::vector<Time>{2750, 2750, 3000}));
  EXPECT_EQ(fluidCompletionTimes(cap, {{7, {0}, 0}}), (std::vector<Time>{7}));
}
