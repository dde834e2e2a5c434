// The incremental max-min solver (core/machine/flow_network) against the plain reference
// (core/reference/max_min_fair) on randomized flow sets: after every instant at which
// transfers start or end, every active flow's rate equals the reference's within 1e-9
// relative; every transfer completes exactly once; every byte is accounted for.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"
#include "core/reference/max_min_fair.h"
#include "flow_test_plans.h"

using namespace moe;
using namespace moe::flow_test;

namespace {

// Runs the plan; after each instant, compares every rate with the reference.
// Returns the largest relative difference seen and the number of instants compared.
void runAndCompare(FlowNetwork& net, Simulator& sim, const std::vector<double>& capacity,
                   const std::vector<PlannedTransfer>& plan, double& worst, int& instants) {
  const TransferReplay replay(net, sim, plan);
  worst = 0;
  instants = 0;
  while (sim.step()) {
    if (sim.pendingEvents() > 0 && sim.nextEventTime() == sim.now()) continue;
    const auto flows = net.activeFlows();
    if (flows.empty()) continue;
    std::vector<std::vector<int>> paths;
    for (const auto& f : flows) paths.push_back(f.path);
    const std::vector<double> want = maxMinFairRates(capacity, paths);
    for (std::size_t k = 0; k < flows.size(); ++k) {
      ASSERT_GT(flows[k].rate, 0.0);
      worst = std::max(worst, std::abs(flows[k].rate - want[k]) / want[k]);
    }
    ++instants;
  }
  for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(replay.ends()[i], 1) << "transfer " << i;
  EXPECT_EQ(net.activeFlowCount(), 0);
  // Every byte crossed every resource on its path exactly once.
  std::vector<double> carried(capacity.size(), 0);
  for (const PlannedTransfer& p : plan)
    for (int r : p.path) carried[static_cast<std::size_t>(r)] += static_cast<double>(p.bytes);
  for (std::size_t r = 0; r < capacity.size(); ++r)
    EXPECT_NEAR(net.resource(static_cast<int>(r)).bytesCarried, carried[r], 1e-6 * carried[r] + 1);
}

}  // namespace

TEST(FlowNetworkVsReference, RandomPathsOverRandomResourcesMatchWithin1e9) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    Simulator sim;
    FlowNetwork net(sim);
    std::vector<double> capacity;
    const std::vector<double> gbps = fewBandwidths(rng);
    const int resources = static_cast<int>(gbps.size());
    for (int r = 0; r < resources; ++r) {
      const int id = net.addResource("r" + std::to_string(r), gbps[static_cast<std::size_t>(r)]);
      capacity.push_back(net.resource(id).capacity);
    }
    std::vector<PlannedTransfer> plan;
    const int transfers = 20 + static_cast<int>(rng() % 80);
    for (int i = 0; i < transfers; ++i) {
      std::vector<int> path = randomPath(rng, resources);
      plan.push_back({static_cast<Time>(rng() % 4) * 500 * kNs, std::move(path),
                      1024 + static_cast<std::int64_t>(rng() % (1 << 20))});
    }
    double worst = 0;
    int instants = 0;
    runAndCompare(net, sim, capacity, plan, worst, instants);
    EXPECT_LE(worst, 1e-9) << "seed " << seed;
    EXPECT_GT(instants, transfers / 2) << "seed " << seed;
  }
}

// The shape the emulator builds: per card an HBM, a NIC tx and rx and DMA ports; RDMA writes
// cross hbm -> tx -> rx -> hbm, local copies port -> hbm. All NICs saturated, so a change
// can ripple through many cards.
TEST(FlowNetworkVsReference, AllToAllOverNicsAndHbmMatchesWithin1e9) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    Simulator sim;
    FlowNetwork net(sim);
    std::vector<double> capacity;
    const AllToAll shape;
    for (double g : shape.bandwidths())
      capacity.push_back(net.resource(net.addResource("r", g)).capacity);
    const std::vector<PlannedTransfer> plan = shape.plan(rng);
    double worst = 0;
    int instants = 0;
    runAndCompare(net, sim, capacity, plan, worst, instants);
    EXPECT_LE(worst, 1e-9) << "seed " << seed;
    EXPECT_GT(instants, 100) << "seed " << seed;
  }
}

// Transfers started by an end, at its instant: on a path of their own, or on the ended
// transfer's path, where they take over its rate without a solve (the handover). The
// allocation after each instant is still the reference's.
TEST(FlowNetworkVsReference, TransfersStartedByAnEndOnItsPathMatchWithin1e9) {
  std::uint64_t handovers = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    Simulator sim;
    FlowNetwork net(sim);
    std::vector<double> capacity;
    const bool allToAll = seed % 2 == 0;
    const AllToAll shape;
    const std::vector<double> gbps = allToAll ? shape.bandwidths() : fewBandwidths(rng);
    for (double g : gbps) capacity.push_back(net.resource(net.addResource("r", g)).capacity);
    std::vector<PlannedTransfer> plan;
    if (allToAll) {
      plan = shape.plan(rng);
    } else {
      for (int i = 0; i < 150; ++i)
        plan.push_back({static_cast<Time>(rng() % 4) * 500 * kNs,
                        randomPath(rng, static_cast<int>(gbps.size())),
                        1024 + static_cast<std::int64_t>(rng() % (1 << 20))});
    }
    plan = chained(std::move(plan), rng);
    double worst = 0;
    int instants = 0;
    runAndCompare(net, sim, capacity, plan, worst, instants);
    EXPECT_LE(worst, 1e-9) << "seed " << seed;
    handovers += net.handovers();
  }
  EXPECT_GT(handovers, 500u);
}

// Two transfers share a link; when one ends, the next on its path starts in its completion
// and takes over its half without a solve. Its neighbour's rate does not move.
TEST(FlowHandover, TheNextTransferOnAPathTakesOverTheRateWithoutASolve) {
  Simulator sim;
  FlowNetwork net(sim);
  net.addResource("link", 100);
  const std::vector<PlannedTransfer> plan = {
      {0, {0}, 1 << 20, 1}, {-1, {0}, 1 << 20}, {0, {0}, 4 << 20}};
  const TransferReplay replay(net, sim, plan);
  std::uint64_t solvesBefore = 0;
  while (sim.step()) {
    if (replay.ends()[0] == 0) solvesBefore = net.recomputes();
    if (replay.ends()[0] == 1 && replay.ends()[1] == 0) {
      EXPECT_EQ(net.recomputes(), solvesBefore);  // no solve at the handover
      ASSERT_EQ(net.activeFlowCount(), 2);
      for (const auto& f : net.activeFlows()) EXPECT_EQ(f.rate, net.resource(0).capacity / 2);
    }
  }
  EXPECT_EQ(net.handovers(), 1u);
  // Halves until the second transfer ends (2 MiB each by then), then the link alone.
  const double perPs = net.resource(0).capacity;
  EXPECT_NEAR(static_cast<double>(replay.done()[1]), 2.0 * (2 << 20) / perPs, 2);
  EXPECT_NEAR(static_cast<double>(replay.done()[2]), 1.0 * (6 << 20) / perPs, 3);
}

// A resource's load is a running sum of its flows' rates, resummed now and then. Thousands
// of transfers through the same two resources take it through many resums, and the rates
// still match the reference at every instant.
TEST(FlowNetworkVsReference, ThousandsOfTransfersOnOneResourceStayExact) {
  std::mt19937_64 rng(42);
  Simulator sim;
  FlowNetwork net(sim);
  std::vector<double> capacity;
  for (const double g : {100.0, 56.0, 25.0}) {
    const int id = net.addResource("r", g);
    capacity.push_back(net.resource(id).capacity);
  }
  std::vector<PlannedTransfer> plan;
  for (int i = 0; i < 6000; ++i) {
    std::vector<int> path = {0};
    if (rng() % 2) path.push_back(1 + static_cast<int>(rng() % 2));
    plan.push_back({static_cast<Time>(rng() % 60000) * 10 * kNs, path,
                    1024 + static_cast<std::int64_t>(rng() % 16384)});
  }
  double worst = 0;
  int instants = 0;
  runAndCompare(net, sim, capacity, plan, worst, instants);
  EXPECT_LE(worst, 1e-9);
  EXPECT_GT(instants, 6000);
}

TEST(MaxMinFairReference, TextbookCases) {
  // One link shared by two flows; a second flow also crossing a narrower link.
  EXPECT_EQ(maxMinFairRates({1.0}, {{0}, {0}}), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(maxMinFairRates({1.0, 3.0}, {{0, 1}, {1}}), (std::vector<double>{1.0, 2.0}));
  // Three flows on a line of two links: the two one-hop flows get the leftover.
  EXPECT_EQ(maxMinFairRates({1.0, 2.0}, {{0, 1}, {0}, {1}}), (std::vector<double>{0.5, 0.5, 1.5}));
  EXPECT_THROW(maxMinFairRates({1.0}, {{}}), std::invalid_argument);
}

// A change that cascades through four saturated resources in turn. When y1 ends, x1 speeds
// up on R0, so x2 must slow on R1, x3 speed up on R2 and x4 slow on R3. Each layer is found
// by the bottleneck check only after the one before it has new rates, so without closing
// the working set over saturated resources the solve refilled 2, 3, 4 and then 5 flows.
// Closed over them, it starts with all five and fills once.
TEST(FlowNetworkWorkingSet, ACascadeThroughSaturatedResourcesIsSolvedInOneFill) {
  Simulator sim;
  FlowNetwork net(sim);
  std::vector<double> capacity;
  for (const double g : {100.0, 100.0, 200.0, 300.0}) {
    const int id = net.addResource("r", g);
    capacity.push_back(net.resource(id).capacity);
  }
  const double c = capacity[0];
  const std::vector<std::vector<int>> paths = {{0}, {0}, {0, 1}, {1, 2}, {2, 3}, {3}};
  // y1 ends after about 100 ns at c / 3; the others run for milliseconds.
  const std::vector<std::int64_t> bytes = {3333, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30};
  int ended = 0;
  for (std::size_t i = 0; i < paths.size(); ++i)
    net.start(FlowPath(paths[i]), bytes[i],
              Action{[](void* n, std::uint64_t) { ++*static_cast<int*>(n); }, &ended, 0});
  sim.runUntil(10 * kNs);
  auto rates = [&] {
    std::vector<double> out;
    for (const auto& f : net.activeFlows()) out.push_back(f.rate / c);
    std::sort(out.begin(), out.end());
    return out;
  };
  // y1, y2 and x1 share R0 (1/3 each); x2 takes the rest of R1 (2/3); x3 the rest of R2
  // (4/3); x4 the rest of R3 (5/3).
  const std::vector<double> before = {1.0 / 3, 1.0 / 3, 1.0 / 3, 2.0 / 3, 4.0 / 3, 5.0 / 3};
  const std::vector<double> got = rates();
  ASSERT_EQ(got.size(), before.size());
  for (std::size_t k = 0; k < before.size(); ++k) EXPECT_NEAR(got[k], before[k], 1e-9);

  const std::uint64_t solves = net.recomputes();
  const std::uint64_t filled = net.flowsRecomputed();
  sim.runUntil(1000 * kNs);
  ASSERT_EQ(ended, 1);  // y1
  EXPECT_EQ(net.recomputes(), solves + 1);
  EXPECT_EQ(net.flowsRecomputed(), filled + 5);  // one fill of y2, x1, x2, x3, x4
  const std::vector<double> after = {0.5, 0.5, 0.5, 1.5, 1.5};
  const std::vector<double> gotAfter = rates();
  ASSERT_EQ(gotAfter.size(), after.size());
  for (std::size_t k = 0; k < after.size(); ++k) EXPECT_NEAR(gotAfter[k], after[k], 1e-9);
  std::vector<std::vector<int>> left(paths.begin() + 1, paths.end());
  const std::vector<double> want = maxMinFairRates(capacity, left);
  const auto flows = net.activeFlows();
  for (std::size_t k = 0; k < flows.size(); ++k) {
    const auto at = std::find(left.begin(), left.end(), flows[k].path) - left.begin();
    EXPECT_NEAR(flows[k].rate, want[static_cast<std::size_t>(at)], 1e-9 * c);
  }
}
