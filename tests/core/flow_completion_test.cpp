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

using namespace moe;

namespace {

struct Replay {
  FlowNetwork* net;
  Simulator* sim;
  const std::vector<FluidTransfer>* plan;
  std::vector<Time> done;
};

void completed(void* ctx, std::uint64_t i) {
  auto* r = static_cast<Replay*>(ctx);
  r->done[i] = r->sim->now();
}

void startOne(void* ctx, std::uint64_t i) {
  auto* r = static_cast<Replay*>(ctx);
  const FluidTransfer& t = (*r->plan)[i];
  r->net->start(FlowPath(t.path), t.bytes, Action{&completed, r, i});
}

struct Difference {
  Time worst = 0;       // picoseconds
  std::size_t off = 0;  // transfers more than 1 ps off
};

// Replays `plan` through a FlowNetwork over `gbps` resources and compares each completion
// with the fluid reference.
Difference compare(const std::vector<double>& gbps, const std::vector<FluidTransfer>& plan) {
  Simulator sim;
  FlowNetwork net(sim);
  std::vector<double> capacity;
  for (double g : gbps) capacity.push_back(net.resource(net.addResource("r", g)).capacity);
  Replay r{&net, &sim, &plan, std::vector<Time>(plan.size(), -1)};
  for (std::size_t i = 0; i < plan.size(); ++i) sim.at(plan[i].start, Action{&startOne, &r, i});
  while (sim.step()) {
  }
  const std::vector<Time> want = fluidCompletionTimes(capacity, plan);
  Difference d;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_GE(r.done[i], plan[i].start) << "transfer " << i << " never completed";
    d.worst = std::max(d.worst, std::abs(r.done[i] - want[i]));
    d.off += std::abs(r.done[i] - want[i]) > 1 ? 1 : 0;
  }
  return d;
}

}  // namespace

TEST(FlowCompletionVsFluidReference, RandomPathsCompleteWithinOnePicosecond) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    const int resources = 3 + static_cast<int>(rng() % 12);
    const double choices[] = {25, 56, 100, 1600};  // few bandwidths: ties are common
    std::vector<double> gbps;
    for (int r = 0; r < resources; ++r) gbps.push_back(choices[rng() % 4]);
    std::vector<FluidTransfer> plan;
    const int transfers = 20 + static_cast<int>(rng() % 80);
    for (int i = 0; i < transfers; ++i) {
      std::vector<int> all(static_cast<std::size_t>(resources));
      for (int r = 0; r < resources; ++r) all[static_cast<std::size_t>(r)] = r;
      std::shuffle(all.begin(), all.end(), rng);
      all.resize(1 + rng() % static_cast<std::size_t>(std::min(4, resources)));
      plan.push_back({static_cast<Time>(rng() % 4) * 500 * kNs, all,
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
    const int cards = 12, ports = 4, perCard = 3 + ports;
    std::vector<double> gbps;
    for (int c = 0; c < cards; ++c)
      for (double g : {1600.0, 25.0, 25.0, 100.0, 100.0, 100.0, 100.0}) gbps.push_back(g);
    auto hbm = [&](int c) { return c * perCard; };
    std::vector<FluidTransfer> plan;
    for (int i = 0; i < 300; ++i) {
      const int s = static_cast<int>(rng() % cards);
      const Time at = static_cast<Time>(rng() % 200) * 100 * kNs;
      const auto bytes = static_cast<std::int64_t>(4096 + rng() % 65536);
      if (rng() % 3 == 0) {
        plan.push_back({at, {hbm(s) + 3 + static_cast<int>(rng() % ports), hbm(s)}, bytes});
      } else {
        int d = static_cast<int>(rng() % (cards - 1));
        if (d >= s) ++d;
        plan.push_back({at, {hbm(s), hbm(s) + 1, hbm(d) + 2, hbm(d)}, bytes});
      }
    }
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
