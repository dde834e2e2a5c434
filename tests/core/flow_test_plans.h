#pragma once
// What the flow-model tests share: transfer plans (random paths over random resources, and
// the emulator's all-to-all shape) and their replay through a FlowNetwork, which records
// when each transfer ended and in which order. Each test compares such replays with a
// reference of its own (max-min rates, the fluid replay, per-flow timers, solving every
// resource). A plan draws from the caller's generator, so a seed gives the same plan to
// every test that uses it.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"

namespace moe::flow_test {

struct PlannedTransfer {
  Time at;  // when it starts; -1: when the transfer whose `next` it is ends
  std::vector<int> path;
  std::int64_t bytes;
  int next = -1;  // started when this one ends (a chained transfer), else -1
};

// 3 to 14 resources of a few distinct bandwidths (GB/s), so equal shares (ties) are common.
inline std::vector<double> fewBandwidths(std::mt19937_64& rng) {
  const int resources = 3 + static_cast<int>(rng() % 12);
  const double choices[] = {25, 56, 100, 1600};
  std::vector<double> gbps;
  for (int r = 0; r < resources; ++r) gbps.push_back(choices[rng() % 4]);
  return gbps;
}

// 1 to 4 distinct resources of [0, resources), in random order.
inline std::vector<int> randomPath(std::mt19937_64& rng, int resources) {
  std::vector<int> all(static_cast<std::size_t>(resources));
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(1 + rng() % static_cast<std::size_t>(std::min(4, resources)));
  return all;
}

// The emulator's shape: per card an HBM, a NIC tx and rx, then `ports` DMA ports (resources
// card * (3 + ports) onwards, in that order). RDMA writes cross hbm -> tx -> rx -> hbm of
// another card, local copies port -> hbm; with enough transfers every NIC is saturated, so
// a change ripples through many cards.
struct AllToAll {
  int cards = 12;
  int ports = 4;
  int transfers = 400;
  int startSlots = 200;     // starts at one of this many multiples of 100 ns
  bool equalSizes = false;  // half the transfers of one size (whole classes end together)
  double hbmGBps = 1600;

  std::vector<double> bandwidths() const {
    std::vector<double> gbps;
    for (int c = 0; c < cards; ++c) {
      gbps.insert(gbps.end(), {hbmGBps, 25.0, 25.0});
      for (int p = 0; p < ports; ++p) gbps.push_back(100.0);
    }
    return gbps;
  }

  std::vector<PlannedTransfer> plan(std::mt19937_64& rng) const {
    const int perCard = 3 + ports;
    const auto hbm = [perCard](int c) { return c * perCard; };
    std::vector<PlannedTransfer> plan;
    for (int i = 0; i < transfers; ++i) {
      const int s = static_cast<int>(rng() % static_cast<std::uint64_t>(cards));
      const Time at = static_cast<Time>(rng() % static_cast<std::uint64_t>(startSlots)) * 100 * kNs;
      const auto bytes =
          static_cast<std::int64_t>(equalSizes && rng() % 2 ? 32768 : 4096 + rng() % 65536);
      if (rng() % 3 == 0) {
        plan.push_back({at, {hbm(s) + 3 + static_cast<int>(rng() % ports), hbm(s)}, bytes});
      } else {
        int d = static_cast<int>(rng() % static_cast<std::uint64_t>(cards - 1));
        if (d >= s) ++d;
        plan.push_back({at, {hbm(s), hbm(s) + 1, hbm(d) + 2, hbm(d)}, bytes});
      }
    }
    return plan;
  }
};

// Some transfers start when the one before them ends, at that instant: a quarter on a path
// of their own, a quarter on their predecessor's path (the next write on a queue pair, the
// next DMA on a pipe), which takes over the ended transfer's rate (FlowNetwork's handover).
inline std::vector<PlannedTransfer> chained(std::vector<PlannedTransfer> plan,
                                            std::mt19937_64& rng) {
  for (std::size_t i = 0; i + 1 < plan.size(); ++i) {
    const auto draw = rng() % 4;
    if (draw >= 2 || plan[i + 1].at < 0) continue;
    plan[i].next = static_cast<int>(i + 1);
    plan[i + 1].at = -1;
    if (draw == 1) plan[i + 1].path = plan[i].path;
  }
  return plan;
}

// Schedules every transfer of `plan` on `net` (each start is an event, so starts interleave
// with ends and recomputes as in the emulator) and records its ends as the simulator runs
// them. Keep it alive, and in place, until the simulator has run.
class TransferReplay {
 public:
  TransferReplay(FlowNetwork& net, Simulator& sim, const std::vector<PlannedTransfer>& plan)
      : net_(net), sim_(sim), plan_(plan), done_(plan.size(), -1), ends_(plan.size(), 0) {
    for (std::size_t i = 0; i < plan.size(); ++i)
      if (plan[i].at >= 0) sim.at(plan[i].at, Action{&started, this, i});
  }
  TransferReplay(const TransferReplay&) = delete;
  TransferReplay& operator=(const TransferReplay&) = delete;

  const std::vector<Time>& done() const { return done_; }   // -1: never ended
  const std::vector<int>& order() const { return order_; }  // transfers in the order they ended
  const std::vector<int>& ends() const { return ends_; }    // how often each one ended

 private:
  static void started(void* ctx, std::uint64_t i) {
    auto* r = static_cast<TransferReplay*>(ctx);
    const PlannedTransfer& t = r->plan_[i];
    r->net_.start(FlowPath(t.path), t.bytes, Action{&ended, r, i});
  }
  static void ended(void* ctx, std::uint64_t i) {
    auto* r = static_cast<TransferReplay*>(ctx);
    r->done_[i] = r->sim_.now();
    r->order_.push_back(static_cast<int>(i));
    ++r->ends_[i];
    if (const int next = r->plan_[i].next; next >= 0) started(r, static_cast<std::uint64_t>(next));
  }

  FlowNetwork& net_;
  Simulator& sim_;
  const std::vector<PlannedTransfer>& plan_;
  std::vector<Time> done_;
  std::vector<int> order_;
  std::vector<int> ends_;
};

}  // namespace moe::flow_test
