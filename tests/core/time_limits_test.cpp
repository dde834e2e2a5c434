// Issue 17: emulated time cannot overflow. Conversions from bytes / bandwidth to picoseconds
// are checked, the simulator refuses events past the cap, and a starved link makes a
// transfer slower (or stops the run with the field to change), never faster.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"
#include "core/util/error.h"

using namespace moe;

namespace {
void noop(void*, std::uint64_t) {}
void markDone(void* ctx, std::uint64_t) {
  *static_cast<bool*>(ctx) = true;
}
}  // namespace

TEST(TimeLimits, TransferTimeGrowsAsBandwidthShrinksUntilTheCapRefusesIt) {
  const std::int64_t bytes = 1 << 20;
  // 1 MiB at 1600 GB/s: 655.36 ns, rounded up to whole picoseconds.
  EXPECT_EQ(transferTime(bytes, 1600.0), 655360);
  Time previous = 0;
  for (double gbps : {1600.0, 56.0, 1.0, 0.01, 0.001}) {
    const Time t = transferTime(bytes, gbps);
    EXPECT_GT(t, previous) << gbps << " GB/s must be slower than the faster link before it";
    previous = t;
  }
  // Below the validated minimum (a subnormal, a 1e-300 GB/s link): the cast would be
  // undefined; instead the cap refuses it naming the fields to change.
  for (double gbps : {1e-15, 1e-300, 1e-320, 0.0}) {
    try {
      (void)transferTime(bytes, gbps);
      ADD_FAILURE() << gbps << " GB/s was not refused";
    } catch (const InputError& e) {
      EXPECT_EQ(e.path(), "hardware.overrides") << e.what();
      EXPECT_NE(std::string(e.what()).find("cap of 1000 s"), std::string::npos) << e.what();
    }
  }
}

TEST(TimeLimits, CheckedPsRefusesNanInfinityAndValuesPastTheCap) {
  EXPECT_EQ(checkedPs(0.0), 0);
  EXPECT_EQ(checkedPs(-5.0), 0);
  EXPECT_EQ(checkedPs(1.2), 2);  // rounded up: nothing finishes early
  EXPECT_EQ(checkedPs(static_cast<double>(kMaxEmulatedTime)), kMaxEmulatedTime);
  EXPECT_THROW(checkedPs(static_cast<double>(kMaxEmulatedTime) * 2), InputError);
  EXPECT_THROW(checkedPs(std::numeric_limits<double>::infinity()), InputError);
  EXPECT_THROW(checkedPs(std::numeric_limits<double>::quiet_NaN()), InputError);
  EXPECT_THROW(checkedPs(1e300), InputError);
}

TEST(TimeLimits, CheckedAddNeverWrapsAndTheSimulatorRefusesEventsPastTheCap) {
  EXPECT_EQ(checkedAdd(5, 7), 12);
  EXPECT_THROW(checkedAdd(kMaxEmulatedTime, 1), InputError);
  EXPECT_THROW(checkedAdd(1, std::numeric_limits<Time>::max()), InputError);
  Simulator sim;
  EXPECT_THROW(sim.at(kMaxEmulatedTime + 1, Action{&noop, nullptr, 0}), InputError);
  EXPECT_THROW(sim.after(std::numeric_limits<Time>::max(), Action{&noop, nullptr, 0}), InputError);
  sim.at(kMaxEmulatedTime, Action{&noop, nullptr, 0});  // the cap itself is allowed
  EXPECT_TRUE(sim.step());
  EXPECT_EQ(sim.now(), kMaxEmulatedTime);
}

TEST(TimeLimits, AStarvedFlowIsSlowerNotFasterAndAHopelessOneStopsAtTheCap) {
  auto finishTime = [](double gbps, std::int64_t bytes) {
    Simulator sim;
    FlowNetwork net(sim);
    const int link = net.addResource("link", gbps);
    bool done = false;
    net.start({link}, bytes, Action{&markDone, &done, 0});
    sim.run();
    EXPECT_TRUE(done);
    return sim.now();
  };
  const Time fast = finishTime(100.0, 1 << 20);
  const Time slow = finishTime(0.001, 1 << 20);
  EXPECT_GT(slow, fast);
  EXPECT_NEAR(static_cast<double>(slow), 1.048576e12, 2.0);  // 1 MiB at 1 MB/s: 1.048576 s
  // 2 TB at 1 MB/s would take 2e6 s: past the cap, refused rather than wrapped.
  EXPECT_THROW(finishTime(0.001, std::int64_t{2} << 40), InputError);
}
