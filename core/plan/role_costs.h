#pragma once
// The pieces the role models share (role_throughput.cpp): the profile's costs in ns, how
// targets dealt round-robin over cores add up, and the limits a ring puts on its producer.
// Internal to core/plan; dispatch_role_model.cpp and combine_role_model.cpp model one stage
// each.

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/plan/role_throughput.h"

namespace moe::role_model {

// The profile's numbers in ns and bytes per ns (GB/s is B/ns).
struct Costs {
  double mte, pair, port, nic, gm, hccsLat, rdmaLat, post, poll, vecBytesPerNs, dmaAlign;
  bool switchFabric;
  explicit Costs(const HardwareProfile& hw)
      : mte(hw.mteGBpsPerCore),
        pair(hw.hccsGBpsPerPair),
        port(hw.portGBps),
        nic(hw.nicGBps),
        gm(hw.gmLatencyNs),
        hccsLat(hw.hccsLatencyNs),
        rdmaLat(hw.rdmaLatencyNs),
        post(hw.rdmaPostNs),
        poll(hw.pollLatencyNs),
        vecBytesPerNs(hw.vectorBytesPerCycle * hw.clockMhz / 1000.0),
        dmaAlign(hw.dmaAlignBytes),
        switchFabric(hw.fabric == "switch") {}
  // A fenced write's landing (the hop latency) and the tail word after it, per chunk.
  double publishNs(bool sameCard) const { return sameCard ? 2 * gm : 2 * hccsLat; }
  // A consumer's turn per batch: one sweep of tail reads, the read's landing and the head
  // word (on its own card).
  double consumeNs() const { return gm + gm + gm; }
  // A copy the core waits for before going on (a spill, a read back, a staged partial): its
  // bytes through the core's DMA port, then the local hop's latency until it lands.
  double awaitedCopyNs(double bytes) const { return bytes / mte + gm; }
  // A ring's round trip: the chunk's landing and tail, a poll, the consumer's read of the
  // chunk, its head write and the producer's re-read of the head.
  double ringRoundTripNs(double hopLat, double batchBytes) const {
    return hopLat + poll + consumeNs() + batchBytes / mte + hopLat;
  }
  // A vector pass over `bytes` of fp32 or bf16 elements.
  double vectorNs(double bytes) const { return bytes / vecBytesPerNs; }
};

// Targets (or rings) dealt round-robin over `cores` cores, in order: the busiest core's sum.
inline double roundRobinMax(const std::vector<double>& work, int cores) {
  std::vector<double> perCore(static_cast<std::size_t>(std::max(1, cores)), 0.0);
  for (std::size_t i = 0; i < work.size(); ++i) perCore[i % perCore.size()] += work[i];
  return perCore.empty() ? 0.0 : *std::max_element(perCore.begin(), perCore.end());
}

// Sender targets as dealt: each with its core time, its destination card over the
// intra-server fabric (-1: none, its own card or the NIC) and the bytes it puts there.
struct Targets {
  std::vector<double> work, bytes;
  std::vector<int> dest;
  void add(double w, int d, double b) {
    work.push_back(w);
    dest.push_back(d);
    bytes.push_back(b);
  }
};

// Sender cores start together and take their targets in the dealt order, so round r is
// every core's r-th target. In a round, cores whose targets go to the same card share that
// pair link (with a switch fabric, all of them share the card's port): with `withLinks`, a
// round takes at least its busiest link's time, not only its slowest core's. The sum over
// rounds, at least each core's own sum.
inline double lockstepNs(const Targets& tg, int cores, const Costs& c, bool withLinks) {
  const std::size_t n = tg.work.size(), step = static_cast<std::size_t>(std::max(1, cores));
  double total = 0;
  for (std::size_t r0 = 0; r0 < n; r0 += step) {
    double slowest = 0, port = 0, link = 0;
    std::vector<std::pair<int, double>> perDest;
    for (std::size_t i = r0; i < std::min(n, r0 + step); ++i) {
      slowest = std::max(slowest, tg.work[i]);
      if (tg.dest[i] < 0) continue;
      port += tg.bytes[i];
      auto it = std::find_if(perDest.begin(), perDest.end(),
                             [&](const auto& p) { return p.first == tg.dest[i]; });
      if (it == perDest.end())
        perDest.push_back({tg.dest[i], tg.bytes[i]});
      else
        it->second += tg.bytes[i];
    }
    for (const auto& p : perDest) link = std::max(link, p.second / c.pair);
    if (c.switchFabric) link = port / c.port;
    total += withLinks ? std::max(slowest, link) : slowest;
  }
  return std::max(total, roundRobinMax(tg.work, cores));
}

// The least time a ring of `queue` chunks needs to carry `chunks` chunks: each chunk's slot
// comes back only a round trip after it was published (the producer publishes, the consumer
// sees it after a poll, drains it and frees it, the producer reads the head), so at most
// `queue` chunks move per round trip.
inline double ringLimitNs(double chunks, int queue, double roundTripNs) {
  return chunks * roundTripNs / std::max(1, queue);
}

// A producer serves its targets one after another: it writes a target's rows into the ring
// until the ring is full, then can go on only at the pace its consumer drains it. Rows past
// the ring's capacity cost the producer the consumer's time per row (a lower bound: the
// consumer may also be busy with other rings).
inline double coupledNs(double rows, double capacityRows, double consumerPerRowNs) {
  return std::max(0.0, rows - capacityRows) * consumerPerRowNs;
}

// The stage's prediction on the card whose stage ends last (the first such card on a tie):
// `predictCard(card)` gives one card's.
template <typename PredictCard>
StagePrediction slowestCard(int cards, const PredictCard& predictCard) {
  StagePrediction worst;
  double worstNs = -1;
  for (int card = 0; card < cards; ++card) {
    const StagePrediction p = predictCard(card);
    if (p.stageNs() > worstNs) {
      worstNs = p.stageNs();
      worst = p;
    }
  }
  return worst;
}

StagePrediction predictDispatch(const Scenario& sc, const RoutingShares& sh, const Costs& c);
StagePrediction predictCombine(const Scenario& sc, const RoutingShares& sh, const Costs& c);

}  // namespace moe::role_model
