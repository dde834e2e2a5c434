// The switch fabric (hardware.fabric "switch"): every card has one port per direction into
// a non-blocking switch, and the flow model shares those ports max-min like any resource.
// Two transfers out of one card split its tx port; two into one card split its rx port;
// disjoint pairs each get the whole port. On an HCCS mesh the same transfers cross
// distinct pair links and do not slow each other.

#include <gtest/gtest.h>

#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/hardware_profile.h"
#include "core/machine/machine.h"
#include "core/record/observer.h"

using namespace moe;

namespace {

void noop(void*, std::uint64_t) {}

// Starts one 1 MiB RDMA write per (src, dst) pair inside one 4-card server and returns the
// rates (GB/s) the flow model gives them right after they all started.
std::vector<double> ratesFor(const std::string& fabric,
                             const std::vector<std::pair<int, int>>& pairs) {
  Simulator sim;
  Observer obs(1024);
  HardwareProfile hw = builtinProfile("h800-nvswitch");
  hw.fabric = fabric;
  hw.cardsPerServer = 4;
  hw.hbmGBps = 100000.0;  // keep HBM out of the way: only the fabric is measured
  hw.portGBps = 160.0;
  hw.hccsGBpsPerPair = 50.0;
  Machine m(sim, hw, ClusterShape{1, 4}, PayloadMode::None, obs);
  const std::int64_t bytes = 1 << 20;
  for (auto [s, d] : pairs) {
    Buffer* src = m.allocGm(s, bytes, "src", true);
    Buffer* dst = m.allocGm(d, bytes, "dst", true);
    FlowPath path;
    Time latency = 0;
    m.routeRdma(Region{dst, 0, bytes}, Region{src, 0, bytes}, path, latency);
    EXPECT_EQ(latency, nanoseconds(hw.hccsLatencyNs));
    m.net().start(path, bytes, Action{&noop, nullptr, 0});
  }
  sim.step();  // the shared recompute of the starts
  std::vector<double> rates;
  for (const auto& f : m.net().activeFlows()) rates.push_back(f.rate * 1e3);  // B/ps -> GB/s
  return rates;
}

}  // namespace

TEST(SwitchFabric, PortsAreSharedResourcesAndPairsAreNot) {
  // Fan-out: card 0 -> 1 and 0 -> 2 share card 0's tx port.
  for (double r : ratesFor("switch", {{0, 1}, {0, 2}})) EXPECT_NEAR(r, 80.0, 1e-9);
  // Fan-in: 1 -> 3 and 2 -> 3 share card 3's rx port.
  for (double r : ratesFor("switch", {{1, 3}, {2, 3}})) EXPECT_NEAR(r, 80.0, 1e-9);
  // Disjoint ports: each flow has a whole port (non-blocking switch).
  for (double r : ratesFor("switch", {{0, 1}, {2, 3}, {1, 0}, {3, 2}})) EXPECT_NEAR(r, 160.0, 1e-9);
  // Three out of card 0, one of them also into a shared rx: max-min gives 160/3 each.
  const auto three = ratesFor("switch", {{0, 1}, {0, 2}, {0, 3}, {1, 3}});
  ASSERT_EQ(three.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(three[i], 160.0 / 3, 1e-9);
  EXPECT_NEAR(three[3], 160.0 - 160.0 / 3, 1e-9);  // card 3's rx leftover
  // The HCCS mesh: the fan-out crosses two distinct pair links at their full rate.
  for (double r : ratesFor("hccs-mesh", {{0, 1}, {0, 2}})) EXPECT_NEAR(r, 50.0, 1e-9);
}

TEST(SwitchFabric, MachineListsOnePortPerDirectionPerCardAndNoPairLinks) {
  Simulator sim;
  Observer obs(16);
  const HardwareProfile hw = builtinProfile("h800-nvswitch");
  Machine m(sim, hw, ClusterShape{2, 8}, PayloadMode::None, obs);
  int tx = 0, rx = 0, hccs = 0;
  for (const LinkInfo& l : m.links()) {
    tx += l.kind == LinkInfo::Kind::SwitchTx;
    rx += l.kind == LinkInfo::Kind::SwitchRx;
    hccs += l.kind == LinkInfo::Kind::Hccs;
    if (l.kind == LinkInfo::Kind::SwitchTx) {
      EXPECT_EQ(m.net().resource(l.resource).gbps, 160.0);
    }
  }
  EXPECT_EQ(tx, 16);
  EXPECT_EQ(rx, 16);
  EXPECT_EQ(hccs, 0);
}
