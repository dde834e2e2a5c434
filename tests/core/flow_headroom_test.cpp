// Headroom: the solver leaves out of its solves every resource that no allocation can
// saturate (its flows' narrowest resources' capacities sum to less than its own). Against
// the same solver with every resource taking part: the same rates to the bit after every
// instant, the same completion picoseconds, the same order of ends. And the skip happens:
// resources move in and out of the solve as their flows change.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"
#include "flow_test_plans.h"

using namespace moe;
using namespace moe::flow_test;

namespace {

struct Outcome {
  std::vector<Time> done;
  std::vector<int> order;
  // After each instant: every active flow's rate, as bits, in slot order.
  std::vector<std::vector<std::uint64_t>> rates;
  int instantsWithSkips = 0;  // instants at which a resource with flows was left out
  int resourcesThatBound = 0;
};

std::uint64_t bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

Outcome replay(FlowNetwork::Headroom headroom, const std::vector<double>& gbps,
               const std::vector<PlannedTransfer>& plan) {
  Simulator sim;
  FlowNetwork net(sim, FlowNetwork::Timers::PerClass, headroom);
  for (double g : gbps) net.addResource("r", g);
  const TransferReplay r(net, sim, plan);
  Outcome o;
  std::vector<bool> bound(gbps.size(), false);
  while (sim.step()) {
    if (sim.pendingEvents() > 0 && sim.nextEventTime() == sim.now()) continue;
    std::vector<std::uint64_t> now;
    for (const auto& f : net.activeFlows()) now.push_back(bits(f.rate));
    o.rates.push_back(std::move(now));
    bool skipped = false;
    for (int k = 0; k < net.resourceCount(); ++k) {
      if (net.resource(k).activeFlows == 0) continue;
      skipped = skipped || !net.canBind(k);
      if (net.canBind(k)) bound[static_cast<std::size_t>(k)] = true;
    }
    o.instantsWithSkips += skipped ? 1 : 0;
  }
  for (bool b : bound) o.resourcesThatBound += b ? 1 : 0;
  o.done = r.done();
  o.order = r.order();
  return o;
}

// Returns the skipping run's outcome, for the callers' own checks.
Outcome expectSameBits(const std::vector<double>& gbps, const std::vector<PlannedTransfer>& plan,
                       const std::string& what) {
  const Outcome skip = replay(FlowNetwork::Headroom::Skip, gbps, plan);
  const Outcome all = replay(FlowNetwork::Headroom::SolveAll, gbps, plan);
  EXPECT_EQ(skip.rates, all.rates) << what;
  EXPECT_EQ(skip.done, all.done) << what;
  EXPECT_EQ(skip.order, all.order) << what;
  for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_GE(all.done[i], 0) << what << " " << i;
  EXPECT_EQ(all.instantsWithSkips, 0) << what << ": SolveAll leaves nothing out";
  return skip;
}

}  // namespace

TEST(FlowHeadroom, HbmsFedByNicsAreLeftOutAndNoRateChangesByABit) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed * 104729);
    // HBMs of 1600 GB/s: every one is left out (see the check below).
    const AllToAll shape{.transfers = 500, .startSlots = 100, .equalSizes = true};
    const std::vector<double> gbps = shape.bandwidths();
    const std::vector<PlannedTransfer> plan = shape.plan(rng);
    const Outcome skip = expectSameBits(gbps, plan, "seed " + std::to_string(seed));
    // 4 ports x 100 + one tx + at most 11 sources' tx x 25 < 1600: every HBM is left out.
    EXPECT_GT(skip.instantsWithSkips, 100);
  }
}

// HBMs of 250 GB/s: three busy ports saturate one, NIC traffic alone does not. So HBMs
// move into the solve and out of it again as local copies start and end.
TEST(FlowHeadroom, ResourcesMoveInAndOutOfTheSolveWithTheSameBits) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const AllToAll shape{
        .cards = 8, .transfers = 600, .startSlots = 100, .equalSizes = true, .hbmGBps = 250};
    const std::vector<double> gbps = shape.bandwidths();
    const std::vector<PlannedTransfer> plan = shape.plan(rng);
    const Outcome skip = expectSameBits(gbps, plan, "seed " + std::to_string(seed));
    EXPECT_GT(skip.instantsWithSkips, 50) << "seed " << seed;
    // Every HBM took part at some instant (besides the NICs and ports, which always do).
    EXPECT_EQ(skip.resourcesThatBound, static_cast<int>(gbps.size())) << "seed " << seed;
  }
}

TEST(FlowHeadroom, RandomPathsGiveTheSameBitsAsSolvingEveryResource) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const std::vector<double> gbps = fewBandwidths(rng);
    const int resources = static_cast<int>(gbps.size());
    std::vector<PlannedTransfer> plan;
    const int transfers = 20 + static_cast<int>(rng() % 150);
    for (int i = 0; i < transfers; ++i) {
      std::vector<int> path = randomPath(rng, resources);
      plan.push_back({static_cast<Time>(rng() % 6) * 300 * kNs, std::move(path),
                      static_cast<std::int64_t>(1 + rng() % (1 << 20))});
    }
    plan = chained(std::move(plan), rng);  // handovers too
    expectSameBits(gbps, plan, "seed " + std::to_string(seed));
  }
}
