// Class timing (one timer per bottleneck class, the engine's) against per-flow timing (one
// timer per flow, re-armed at every rate change: the model it replaces) on randomized
// transfer sets: every transfer ends at the same picosecond (the issue allows 1 ps; the
// replay of the class's rate log makes it exact), the ends run in the same order, the
// same number of events run, and the bytes carried agree. Completion callbacks start
// follow-up transfers at the same instant, so ends interleave with same-time starts and
// recomputes as they do in the emulator.

#include <gtest/gtest.h>

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
  std::uint64_t events = 0;
  std::uint64_t timersArmed = 0;
  std::uint64_t handovers = 0;
  std::vector<double> carried;
};

Outcome replay(FlowNetwork::Timers timers, const std::vector<double>& gbps,
               const std::vector<PlannedTransfer>& plan, Time updateInterval) {
  Simulator sim;
  FlowNetwork net(sim, timers);
  net.setMinRecomputeInterval(updateInterval);
  for (double g : gbps) net.addResource("r", g);
  const TransferReplay r(net, sim, plan);
  sim.run();
  Outcome o{r.done(), r.order(), sim.eventsRun(), net.timersArmed(), net.handovers(), {}};
  for (int k = 0; k < net.resourceCount(); ++k) o.carried.push_back(net.resource(k).bytesCarried);
  return o;
}

void expectSame(const std::vector<double>& gbps, const std::vector<PlannedTransfer>& plan,
                Time updateInterval, const char* what) {
  const Outcome byClass = replay(FlowNetwork::Timers::PerClass, gbps, plan, updateInterval);
  const Outcome perFlow = replay(FlowNetwork::Timers::PerFlow, gbps, plan, updateInterval);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_GE(perFlow.done[i], 0) << what << ": transfer " << i << " never ended";
    EXPECT_EQ(byClass.done[i], perFlow.done[i]) << what << ": transfer " << i;
  }
  EXPECT_EQ(byClass.order, perFlow.order) << what;
  EXPECT_EQ(byClass.events, perFlow.events) << what;
  EXPECT_EQ(byClass.handovers, perFlow.handovers) << what;
  for (std::size_t k = 0; k < gbps.size(); ++k)
    EXPECT_NEAR(byClass.carried[k], perFlow.carried[k], 1e-9 * perFlow.carried[k] + 1e-6)
        << what << ": resource " << k;
}

}  // namespace

TEST(FlowClassTiming, RandomPathsEndAtTheSamePicosecondInTheSameOrderAsPerFlowTimers) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const std::vector<double> gbps = fewBandwidths(rng);
    const int resources = static_cast<int>(gbps.size());
    std::vector<PlannedTransfer> plan;
    const int transfers = 20 + static_cast<int>(rng() % 150);
    for (int i = 0; i < transfers; ++i) {
      std::vector<int> path = randomPath(rng, resources);
      // Equal sizes now and then, so whole classes end at one picosecond.
      const auto bytes = static_cast<std::int64_t>(rng() % 3 == 0 ? 65536 : 1 + rng() % (1 << 20));
      plan.push_back({static_cast<Time>(rng() % 6) * 300 * kNs, std::move(path), bytes});
    }
    plan = chained(std::move(plan), rng);
    const std::string what = "seed " + std::to_string(seed);
    expectSame(gbps, plan, 0, what.c_str());
    expectSame(gbps, plan, 50 * kNs, (what + ", solves at most every 50 ns").c_str());
  }
}

// The emulator's shape: per card an HBM, NIC tx and rx, DMA ports; RDMA writes cross
// hbm -> tx -> rx -> hbm, local copies port -> hbm; every NIC saturated, so classes hold
// many flows and their shares change at every start and end.
TEST(FlowClassTiming, AllToAllOverNicsMatchesPerFlowTimersExactly) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    const AllToAll shape{.cards = 16, .transfers = 600, .startSlots = 100, .equalSizes = true};
    const std::vector<double> gbps = shape.bandwidths();
    std::vector<PlannedTransfer> plan = shape.plan(rng);
    plan = chained(std::move(plan), rng);
    expectSame(gbps, plan, 0, ("seed " + std::to_string(seed)).c_str());
  }
}

// Many transfers on one saturated link and a short one beside them: when the short one
// ends, the others' share rises. Per-flow timing re-arms each one's timer; class timing
// re-arms their class's one.
TEST(FlowClassTiming, AShareChangeReArmsOneTimerPerClassNotOnePerFlow) {
  std::vector<PlannedTransfer> plan;
  for (int i = 0; i < 50; ++i) plan.push_back({0, {0}, 1 << 20});
  plan.push_back({0, {0}, 1024});
  const Outcome byClass = replay(FlowNetwork::Timers::PerClass, {100}, plan, 0);
  const Outcome perFlow = replay(FlowNetwork::Timers::PerFlow, {100}, plan, 0);
  EXPECT_EQ(byClass.done, perFlow.done);
  EXPECT_EQ(byClass.order, perFlow.order);
  // Per flow: 51 at the start, 50 when the short one ends. By class: one at the start, one
  // at that end, and one as each of the 50 equal ends hands the timer to the next member.
  EXPECT_EQ(perFlow.timersArmed, 101u);
  EXPECT_EQ(byClass.timersArmed, 52u);
}
