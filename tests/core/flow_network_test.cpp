// The incremental max-min solver (core/machine/flow_network) against the plain reference
// (core/reference/max_min_fair) on randomized flow sets: after every instant at which
// transfers start or end, every active flow's rate equals the reference's within 1e-9
// relative; every transfer completes exactly once; every byte is accounted for.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"
#include "core/reference/max_min_fair.h"

using namespace moe;

namespace {

void completed(void* ctx, std::uint64_t arg) {
  ++(*static_cast<std::vector<int>*>(ctx))[arg];
}

struct Planned {
  Time at;
  std::vector<int> path;
  std::int64_t bytes;
};

// Starts each planned transfer at its time from an event, so starts interleave with ends.
struct Starter {
  FlowNetwork* net;
  const std::vector<Planned>* plan;
  std::vector<int>* done;
};
void startOne(void* ctx, std::uint64_t i) {
  auto* s = static_cast<Starter*>(ctx);
  s->net->start(FlowPath((*s->plan)[i].path), (*s->plan)[i].bytes, Action{&completed, s->done, i});
}

// Runs the plan; after each instant, compares every rate with the reference.
// Returns the largest relative difference seen and the number of instants compared.
void runAndCompare(FlowNetwork& net, Simulator& sim, const std::vector<double>& capacity,
                   const std::vector<Planned>& plan, double& worst, int& instants) {
  std::vector<int> done(plan.size(), 0);
  Starter st{&net, &plan, &done};
  for (std::size_t i = 0; i < plan.size(); ++i) sim.at(plan[i].at, Action{&startOne, &st, i});
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
  for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(done[i], 1) << "transfer " << i;
  EXPECT_EQ(net.activeFlowCount(), 0);
  // Every byte crossed every resource on its path exactly once.
  std::vector<double> carried(capacity.size(), 0);
  for (const Planned& p : plan)
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
    const int resources = 3 + static_cast<int>(rng() % 12);
    // Few distinct bandwidths, so equal shares (ties) are common.
    const double gbps[] = {25, 56, 100, 1600};
    for (int r = 0; r < resources; ++r) {
      const int id = net.addResource("r" + std::to_string(r), gbps[rng() % 4]);
      capacity.push_back(net.resource(id).capacity);
    }
    std::vector<Planned> plan;
    const int transfers = 20 + static_cast<int>(rng() % 80);
    for (int i = 0; i < transfers; ++i) {
      std::vector<int> all(static_cast<std::size_t>(resources));
      for (int r = 0; r < resources; ++r) all[static_cast<std::size_t>(r)] = r;
      std::shuffle(all.begin(), all.end(), rng);
      const int hops = 1 + static_cast<int>(rng() % std::min(4, resources));
      all.resize(static_cast<std::size_t>(hops));
      plan.push_back({static_cast<Time>(rng() % 4) * 500 * kNs, all,
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
    auto add = [&](const std::string& n, double g) {
      const int id = net.addResource(n, g);
      capacity.push_back(net.resource(id).capacity);
      return id;
    };
    const int cards = 12, ports = 4;
    std::vector<int> hbm, tx, rx, port;
    for (int c = 0; c < cards; ++c) {
      hbm.push_back(add("hbm", 1600));
      tx.push_back(add("tx", 25));
      rx.push_back(add("rx", 25));
      for (int p = 0; p < ports; ++p) port.push_back(add("port", 100));
    }
    std::vector<Planned> plan;
    for (int i = 0; i < 400; ++i) {
      const int s = static_cast<int>(rng() % cards);
      const Time at = static_cast<Time>(rng() % 200) * 100 * kNs;
      const std::int64_t bytes = 4096 + static_cast<std::int64_t>(rng() % 65536);
      if (rng() % 3 == 0) {
        plan.push_back(
            {at, {port[static_cast<std::size_t>(s * ports + rng() % ports)], hbm[s]}, bytes});
      } else {
        int d = static_cast<int>(rng() % (cards - 1));
        if (d >= s) ++d;
        plan.push_back({at, {hbm[s], tx[s], rx[d], hbm[d]}, bytes});
      }
    }
    double worst = 0;
    int instants = 0;
    runAndCompare(net, sim, capacity, plan, worst, instants);
    EXPECT_LE(worst, 1e-9) << "seed " << seed;
    EXPECT_GT(instants, 100) << "seed " << seed;
  }
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
  std::vector<Planned> plan;
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
