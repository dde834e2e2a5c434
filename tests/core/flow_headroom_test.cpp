// Headroom: the solver leaves out of its solves every resource that no allocation can
// saturate (its flows' narrowest resources' capacities sum to less than its own). Against
// the same solver with every resource taking part: the same rates to the bit after every
// instant, the same completion picoseconds, the same order of ends. And the skip happens:
// resources move in and out of the solve as their flows change.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"

using namespace moe;

namespace {

struct Transfer {
  Time at;
  std::vector<int> path;
  std::int64_t bytes;
};

struct Run {
  FlowNetwork* net;
  Simulator* sim;
  const std::vector<Transfer>* plan;
  std::vector<Time> done;
  std::vector<int> order;
};

void ended(void* ctx, std::uint64_t i) {
  auto* r = static_cast<Run*>(ctx);
  r->done[i] = r->sim->now();
  r->order.push_back(static_cast<int>(i));
}

void startOne(void* ctx, std::uint64_t i) {
  auto* r = static_cast<Run*>(ctx);
  const Transfer& t = (*r->plan)[i];
  r->net->start(FlowPath(t.path), t.bytes, Action{&ended, r, i});
}

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
               const std::vector<Transfer>& plan) {
  Simulator sim;
  FlowNetwork net(sim, FlowNetwork::Timers::PerClass, headroom);
  for (double g : gbps) net.addResource("r", g);
  Run r{&net, &sim, &plan, std::vector<Time>(plan.size(), -1), {}};
  for (std::size_t i = 0; i < plan.size(); ++i) sim.at(plan[i].at, Action{&startOne, &r, i});
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
  o.done = r.done;
  o.order = r.order;
  return o;
}

// Cards with an HBM, NIC tx and rx and DMA ports: RDMA writes cross hbm -> tx -> rx -> hbm,
// local copies port -> hbm. With `hbmGBps` low enough, local copies can saturate an HBM
// (it takes part), while NIC traffic alone cannot (it is left out).
std::vector<Transfer> allToAll(std::mt19937_64& rng, int cards, int ports, int transfers,
                               std::vector<double>& gbps, double hbmGBps) {
  const int perCard = 3 + ports;
  gbps.clear();
  for (int c = 0; c < cards; ++c) {
    gbps.insert(gbps.end(), {hbmGBps, 25.0, 25.0});
    for (int p = 0; p < ports; ++p) gbps.push_back(100.0);
  }
  auto hbm = [&](int c) { return c * perCard; };
  std::vector<Transfer> plan;
  for (int i = 0; i < transfers; ++i) {
    const int s = static_cast<int>(rng() % cards);
    const Time at = static_cast<Time>(rng() % 100) * 100 * kNs;
    const auto bytes = static_cast<std::int64_t>(rng() % 2 ? 32768 : 4096 + rng() % 65536);
    if (rng() % 3 == 0) {
      plan.push_back({at, {hbm(s) + 3 + static_cast<int>(rng() % ports), hbm(s)}, bytes});
    } else {
      int d = static_cast<int>(rng() % (cards - 1));
      if (d >= s) ++d;
      plan.push_back({at, {hbm(s), hbm(s) + 1, hbm(d) + 2, hbm(d)}, bytes});
    }
  }
  return plan;
}

// Returns the skipping run's outcome, for the callers' own checks.
Outcome expectSameBits(const std::vector<double>& gbps, const std::vector<Transfer>& plan,
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
    std::vector<double> gbps;
    const std::vector<Transfer> plan = allToAll(rng, 12, 4, 500, gbps, 1600);
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
    std::vector<double> gbps;
    const std::vector<Transfer> plan = allToAll(rng, 8, 4, 600, gbps, 250);
    const Outcome skip = expectSameBits(gbps, plan, "seed " + std::to_string(seed));
    EXPECT_GT(skip.instantsWithSkips, 50) << "seed " << seed;
    // Every HBM took part at some instant (besides the NICs and ports, which always do).
    EXPECT_EQ(skip.resourcesThatBound, static_cast<int>(gbps.size())) << "seed " << seed;
  }
}

TEST(FlowHeadroom, RandomPathsGiveTheSameBitsAsSolvingEveryResource) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const int resources = 3 + static_cast<int>(rng() % 12);
    const double choices[] = {25, 56, 100, 1600};
    std::vector<double> gbps;
    for (int r = 0; r < resources; ++r) gbps.push_back(choices[rng() % 4]);
    std::vector<Transfer> plan;
    const int transfers = 20 + static_cast<int>(rng() % 150);
    for (int i = 0; i < transfers; ++i) {
      std::vector<int> all(static_cast<std::size_t>(resources));
      for (int r = 0; r < resources; ++r) all[static_cast<std::size_t>(r)] = r;
      std::shuffle(all.begin(), all.end(), rng);
      all.resize(1 + rng() % static_cast<std::size_t>(std::min(4, resources)));
      plan.push_back({static_cast<Time>(rng() % 6) * 300 * kNs, all,
                      static_cast<std::int64_t>(1 + rng() % (1 << 20))});
    }
    expectSameBits(gbps, plan, "seed " + std::to_string(seed));
  }
}
