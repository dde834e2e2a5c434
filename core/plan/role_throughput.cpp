#include "core/plan/role_throughput.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/reference/gating.h"
#include "core/runtime/record_layout.h"

namespace moe {

namespace {

// Probability that a token picks each expert. Gumbel-top-k samples K distinct experts in
// proportion to p, so an expert is picked at most once per token: its probability is
// min(1, lambda * p_e) with lambda chosen so the K slots add up (popular experts saturate
// at 1 and the others share what is left).
std::vector<double> pickProbabilities(const std::vector<double>& p, int K) {
  std::vector<double> q(p.size(), 0.0);
  std::vector<bool> capped(p.size(), false);
  for (;;) {
    double rest = 0;
    int nCapped = 0;
    for (std::size_t e = 0; e < p.size(); ++e) capped[e] ? ++nCapped : (rest += p[e], 0);
    const double lambda = rest > 0 ? (K - nCapped) / rest : 0;
    bool changed = false;
    for (std::size_t e = 0; e < p.size(); ++e) {
      q[e] = capped[e] ? 1.0 : lambda * p[e];
      if (!capped[e] && q[e] > 1.0) capped[e] = changed = true;
    }
    if (!changed) return q;
  }
}

}  // namespace

RoutingShares routingShares(const Scenario& sc) {
  const int R = sc.cluster.ranks(), cps = sc.cluster.cardsPerServer, S = sc.cluster.servers;
  const int K = sc.model.topk, E = sc.model.experts;
  // Trace routing has no popularity; the trace's own counts are its expected load.
  std::vector<double> p =
      sc.routing.kind == RoutingKind::Trace ? expectedExpertLoad(sc) : expertPopularity(sc);
  std::vector<double> q = pickProbabilities(p, K);
  RoutingShares out;
  out.cardSlots.assign(R, 0.0);
  out.cardHit.assign(R, 0.0);
  out.serverHit.assign(S, 0.0);
  // Where each expert lives: instance e on card e / P with the identity table; any EPLB
  // table (generated, explicit or with redundant copies) is there to even the cards' load,
  // so then every card is taken to hold an equal share of experts of average popularity.
  const bool identity = sc.eplb.table.empty() && sc.eplb.tableFrom == EplbTableSource::Explicit &&
                        sc.eplb.redundantExperts == 0;
  const int P = std::max(1, sc.placePerRank());
  std::vector<double> missCard(R, 1.0), missServer(S, 1.0);
  if (identity) {
    for (int e = 0; e < E && e / P < R; ++e) {
      out.cardSlots[e / P] += q[e];
      missCard[e / P] *= 1.0 - q[e];
      missServer[e / P / cps] *= 1.0 - q[e];
    }
  } else {
    const double qe = static_cast<double>(K) / (static_cast<double>(R) * P);
    for (int d = 0; d < R; ++d) {
      out.cardSlots[d] = qe * P;
      missCard[d] = std::pow(1.0 - std::min(1.0, qe), P);
      missServer[d / cps] *= missCard[d];
    }
  }
  for (int d = 0; d < R; ++d) out.cardHit[d] = 1.0 - missCard[d];
  for (int s = 0; s < S; ++s) out.serverHit[s] = 1.0 - missServer[s];
  return out;
}

const char* toString(ModelRole r) {
  switch (r) {
    case ModelRole::Sender:
      return "sender";
    case ModelRole::Forwarder:
      return "forwarder";
    case ModelRole::Receiver:
      return "receiver";
  }
  return "?";
}

double StagePrediction::roleNs(ModelRole r) const {
  return r == ModelRole::Sender ? senderNs : r == ModelRole::Forwarder ? forwarderNs : receiverNs;
}
ModelRole StagePrediction::bottleneck() const {
  ModelRole best = ModelRole::Sender;
  for (ModelRole r : {ModelRole::Forwarder, ModelRole::Receiver})
    if (roleNs(r) > roleNs(best)) best = r;
  return best;
}
double StagePrediction::stageNs() const {
  if (receiverAfter) return std::max(senderNs, forwarderNs) + receiverNs + fillNs;
  return roleNs(bottleneck()) + fillNs;
}

namespace {

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
  // A vector pass over `bytes` of fp32 or bf16 elements.
  double vectorNs(double bytes) const { return bytes / vecBytesPerNs; }
};

// Targets (or rings) dealt round-robin over `cores` cores, in order: the busiest core's sum.
double roundRobinMax(const std::vector<double>& work, int cores) {
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
// pair link (with a switch fabric, all of them share the card's port): when the deal lines
// the cores up on one destination (lanes a multiple of the sender cores), the round takes
// the link's time, not a core's. The sum over rounds, at least each core's own sum.
double lockstepNs(const Targets& tg, int cores, const Costs& c, bool withLinks) {
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
double ringLimitNs(double chunks, int queue, double roundTripNs) {
  return chunks * roundTripNs / std::max(1, queue);
}

// A producer serves its targets one after another: it writes a target's rows into the ring
// until the ring is full, then can go on only at the pace its consumer drains it. Rows past
// the ring's capacity cost the producer the consumer's time per row (a lower bound: the
// consumer may also be busy with other rings).
double coupledNs(double rows, double capacityRows, double consumerPerRowNs) {
  return std::max(0.0, rows - capacityRows) * consumerPerRowNs;
}

StagePrediction predictDispatch(const Scenario& sc, const RoutingShares& sh, const Costs& c) {
  const RingTiling& t = sc.rings.dispatch;
  const RecordLayout rec = recordLayout(sc);
  const int S = sc.cluster.servers, cps = sc.cluster.cardsPerServer, R = sc.cluster.ranks();
  const double BS = sc.model.tokensPerRank;
  const double rb = static_cast<double>(rec.dispatchRecordBytes);
  const double row = static_cast<double>(rec.rowBytes);
  const int C = dispatchRdmaChannels(sc);
  const int channelQueue = dispatchChannelQueueChunks(sc);
  const double senderBatch = std::max<std::int64_t>(1, t.chunkBytes / rec.recordBytes);
  const double fwdBatch = std::max<std::int64_t>(1, t.chunkBytes / rec.dispatchRecordBytes);
  const double recvBatch = senderBatch;  // receivers batch as many as bf16 records fit
  // fp8 and int8 rows are packed by the sender and unpacked by the receiver (vector work).
  const bool quant = sc.model.dispatchDtype != DispatchDtype::Bf16;
  const double packNs = quant ? c.vectorNs(row) : 0.0;
  // A ring's round trip: the chunk's landing and tail, a poll, the consumer's read of the
  // chunk, its head write and the producer's re-read of the head.
  auto roundTrip = [&](double hopLat, double batchBytes) {
    return hopLat + c.poll + c.consumeNs() + batchBytes / c.mte + hopLat;
  };
  // Per row a forwarder on server `srv` spends (read, fan-out writes, its batch's share of
  // the poll, fence and tail words), and a receiver on card `d` (read, one placement per
  // slot, its batch's share of the poll, fence and head word).
  auto fanOutOf = [&](int srv) {
    double f = 0;
    for (int l = 0; l < cps; ++l) f += sh.cardHit[srv * cps + l];
    return f / std::max(1e-12, sh.serverHit[srv]);
  };
  auto fwdPerRow = [&](int srv) {
    const double fan = fanOutOf(srv);
    const double touched = std::min<double>(cps, fwdBatch * fan);
    return (1 + fan) * rb / c.mte + (c.consumeNs() + c.hccsLat * (1 + touched)) / fwdBatch;
  };
  auto recvPerRow = [&](int d) {
    const double slotsPerRow = sh.cardSlots[d] / std::max(1e-12, sh.cardHit[d]);
    return rb / c.mte + packNs + slotsPerRow * (row + 2 * c.dmaAlign) / c.mte +
           (c.consumeNs() + c.gm) / recvBatch;
  };
  StagePrediction worst;
  double worstNs = -1;
  for (int card = 0; card < R; ++card) {
    const int s = card / cps;
    StagePrediction p;
    p.card = card;
    // Sender: per target, gather each row into UB and write it out (two crossings of the
    // core's DMA port), plus per chunk the fence and the tail word (IPC) or the copy to the
    // GM stage and one RDMA post (remote). RDMA targets (each other server's channels)
    // come first in the round-robin, then the local cards, as the launcher deals them.
    Targets targets;
    double nicOut = 0, worstPair = 0, portOut = 0;
    for (int ch = 0; ch < C; ++ch)
      for (int i = 1; i < S; ++i) {
        const int other = (s + i) % S;
        const double rows = BS * sh.serverHit[other] / C;
        const double chunks = std::ceil(rows / senderBatch);
        const double work = rows * (row + 2 * rb) / c.mte + rows * packNs +
                            chunks * (c.gm + c.post) +
                            coupledNs(rows, channelQueue * senderBatch, fwdPerRow(other));
        targets.add(
            std::max(work, ringLimitNs(chunks, channelQueue, roundTrip(c.rdmaLat, fwdBatch * rb))),
            -1, 0.0);
        nicOut += rows * rb;
      }
    for (int l = 0; l < cps; ++l) {
      const int d = s * cps + l;
      const double rows = BS * sh.cardHit[d];
      const double chunks = std::ceil(rows / senderBatch);
      const bool self = d == card;
      const double work = rows * (row + rb) / c.mte + rows * packNs + chunks * c.publishNs(self) +
                          coupledNs(rows, t.queueChunks * senderBatch, recvPerRow(d));
      targets.add(std::max(work, ringLimitNs(chunks, t.queueChunks,
                                             roundTrip(self ? c.gm : c.hccsLat, recvBatch * rb))),
                  self ? -1 : d, rows * rb);
      if (!self) {
        worstPair = std::max(worstPair, rows * rb);
        portOut += rows * rb;
      }
    }
    // Each local card is one target: the cores never line up on one destination.
    const double senderCores = lockstepNs(targets, t.senderCores, c, false);
    const double nicOutNs = nicOut / c.nic;
    const double hccsOutNs = c.switchFabric ? portOut / c.port : worstPair / c.pair;
    p.senderNs = std::max({senderCores, nicOutNs, hccsOutNs});
    p.senderLimit = p.senderNs == senderCores ? "sender cores"
                    : p.senderNs == nicOutNs  ? "NIC out"
                                              : "HCCS out";
    // Forwarder: one RDMA ring per (other server, channel), each from this card's peer on
    // that server, dealt round-robin over the forwarder cores. Per row: read it into UB
    // and write it to each card of this server it goes to; per batch a poll, the head word
    // and one fence and tail word per touched card.
    double fanOut = 0;
    for (int l = 0; l < cps; ++l) fanOut += sh.cardHit[s * cps + l];
    fanOut /= std::max(1e-12, sh.serverHit[s]);
    std::vector<double> rings;
    double nicIn = 0;
    for (int i = 1; i < S; ++i)
      for (int ch = 0; ch < C; ++ch) {
        const double rows = BS * sh.serverHit[s] / C;
        const double batches = std::ceil(rows / fwdBatch);
        const double touched = std::min<double>(cps, fwdBatch * fanOut);
        rings.push_back(rows * (1 + fanOut) * rb / c.mte +
                        batches * (c.consumeNs() + c.hccsLat * (1 + touched)));
        nicIn += rows * rb;
      }
    if (S > 1) {
      const double fwdCores = roundRobinMax(rings, t.forwarderCores);
      const double nicInNs = nicIn / c.nic;
      p.forwarderNs = std::max(fwdCores, nicInNs);
      p.forwarderLimit = p.forwarderNs == fwdCores ? "forwarder cores" : "NIC in";
    } else {
      p.forwarderLimit = "no other server";
    }
    // Receiver: a direct ring from each card of this server, then per (card, other server,
    // channel) a forwarded one. Per row: read it (fp8 rows unpacked on the way) and place
    // one copy per slot of the token on this card's experts (with its scale and index, two
    // tiny writes); per batch a poll, the read's landing, the fence and the head word.
    std::vector<double> recv;
    const double perSource = BS * sh.cardHit[card];
    const double slotsPerRow = sh.cardSlots[card] / std::max(1e-12, sh.cardHit[card]);
    auto drain = [&](double rows) {
      return rows * (rb / c.mte + packNs + slotsPerRow * (row + 2 * c.dmaAlign) / c.mte) +
             std::ceil(rows / recvBatch) * (c.consumeNs() + c.gm);
    };
    for (int l = 0; l < cps; ++l) recv.push_back(drain(perSource));
    for (int l = 0; l < cps; ++l)
      for (int i = 1; i < S; ++i)
        for (int ch = 0; ch < C; ++ch) recv.push_back(drain(perSource / C));
    const double recvCores = roundRobinMax(recv, t.receiverCores);
    // Each peer card's pair link carries its direct rows and what it forwards from the
    // other servers; a switch port takes all of them.
    const double hccsInNs =
        c.switchFabric ? (cps - 1) * S * perSource * rb / c.port : S * perSource * rb / c.pair;
    p.receiverNs = std::max(recvCores, hccsInNs);
    p.receiverLimit = p.receiverNs == recvCores ? "receiver cores" : "HCCS in";
    // Fill: the first chunk is gathered, crosses the NIC, is forwarded, crosses HCCS and
    // is placed before the slowest role can run at its pace; each hop's latency too.
    const double chunk = static_cast<double>(t.chunkBytes);
    p.fillNs = (S > 1 ? c.rdmaLat + c.post + chunk / c.nic : 0.0) + 2 * c.hccsLat +
               3 * chunk / c.mte + chunk / c.pair;
    if (p.stageNs() > worstNs) {
      worstNs = p.stageNs();
      worst = p;
    }
  }
  return worst;
}

StagePrediction predictCombine(const Scenario& sc, const RoutingShares& sh, const Costs& c) {
  const RingTiling& t = sc.rings.combine;
  const RecordLayout rec = recordLayout(sc);
  const int S = sc.cluster.servers, cps = sc.cluster.cardsPerServer, R = sc.cluster.ranks();
  const double BS = sc.model.tokensPerRank, H = sc.model.hidden;
  const double rb = static_cast<double>(rec.recordBytes);  // senders carry bf16 records
  const double row = static_cast<double>(rec.rowBytes);
  const double pb = static_cast<double>(partialRecordBytes(sc));
  const double acc = static_cast<double>(partialAccumBytes(sc));
  const bool summing = sc.combine.sumLocalExperts;
  const bool bf16Wire = sc.combine.partialDtype == PartialDtype::Bf16;
  int lanes = 1, channels = 1;
  combineLanesAndChannels(sc, lanes, channels);
  const double batch = std::max<std::int64_t>(1, t.chunkBytes / rec.recordBytes);
  const double window = combineUbWindowRows(sc);
  const double P = std::max(1, sc.placePerRank());
  const double perPost =
      std::max<double>(1.0, std::floor(static_cast<double>(std::min(sc.combine.rdmaBatchBytes,
                                                                    t.chunkBytes * t.queueChunks)) /
                                       pb));
  auto roundTrip = [&](double hopLat, double batchBytes) {
    return hopLat + c.poll + c.consumeNs() + batchBytes / c.mte + hopLat;
  };
  StagePrediction worst;
  double worstNs = -1;
  for (int card = 0; card < R; ++card) {
    const int s = card / cps;
    StagePrediction p;
    p.card = card;
    // Rows this card's experts send per token of an owner: one per kept slot, or one per
    // token and card when the sender sums its local experts (two fp32 vector passes each).
    const double rowsPerToken = summing ? sh.cardHit[card] : sh.cardSlots[card];
    // Forwarder, lane by lane (one core each): rows from every card of this server for the
    // owners with this card's local index, S * BS tokens. Per row a read and an fp32
    // accumulate; a row whose token's partial is not in the UB window costs a spill of
    // another and a read back (fp32 rows in GM). Per token and lane a partial leaves: to
    // its own card a local copy with fence and tail; else into the RDMA batch, one post per
    // batch.
    double serverRows = 0;
    for (int l = 0; l < cps; ++l)
      serverRows += summing ? sh.cardHit[s * cps + l] : sh.cardSlots[s * cps + l];
    // The busiest lane: (server, channel) pairs are dealt round-robin over the lanes, so
    // some lanes take one pair more than others (combine_plan.h).
    const double pairs = static_cast<double>(S) * channels;
    const double laneShare = std::ceil(pairs / lanes) / pairs;
    const double tokensInLane = S * BS * sh.serverHit[s] * laneShare;
    const double rowsInLane = S * BS * serverRows * laneShare;
    // The senders walk expert by expert, so a token's rows arrive far apart: once the window
    // is full (more tokens open than rows), each row brought in evicts another (a spill),
    // and each row after its token's first reads its sum back.
    const double missRate =
        tokensInLane > 0 ? std::clamp(1.0 - window / tokensInLane, 0.0, 1.0) : 0.0;
    const double laterRows = std::max(0.0, rowsInLane - tokensInLane);
    const double localOut = tokensInLane / S, remoteOut = tokensInLane - localOut;
    const double fwdLane =
        rowsInLane * (rb / c.mte + c.vectorNs(H * 4)) +
        missRate * (rowsInLane + laterRows) * c.awaitedCopyNs(acc) +
        std::ceil(rowsInLane / batch) * (c.consumeNs() + c.hccsLat) +
        tokensInLane * ((bf16Wire ? c.vectorNs(H * 4) : 0.0) + c.awaitedCopyNs(pb)) +
        localOut * c.publishNs(true) + std::ceil(remoteOut / perPost) * c.post;
    const double lanesPerCore = std::ceil(static_cast<double>(lanes) / t.forwarderCores);
    const double fwdCores = fwdLane * lanesPerCore;
    const double fwdPerRow = rowsInLane > 0 ? fwdCores / rowsInLane : 0.0;
    // Sender: targets (forwarder card, lane) round-robin over the sender cores, starting at
    // its own card. A target takes the rows of S owners (one per server) in its lane. Per
    // row a gather and a ring write; per chunk the fence and tail word; per 256 rows an
    // index block read.
    Targets targets;
    double worstPair = 0, portOut = 0;
    // A target reads the index blocks (12 + 4 B per row) of every (local expert, owner)
    // whose server its lane serves, all of that owner's rows, and skips the other lanes'
    // tokens after reading: each block is one waited read per expert, and a server's rows
    // are read once per lane serving it.
    auto indexNs = [&](int L) {
      int served = 0;
      for (int S2 = 0; S2 < S; ++S2)
        for (int ch = 0; ch < channels; ++ch)
          if ((S2 * channels + ch) % lanes == L) {
            ++served;
            break;
          }
      return served * (P * c.gm + BS * sh.cardSlots[card] * 16 / c.mte);
    };
    for (int j = 0; j < cps; ++j) {
      const int f = s * cps + (card % cps + j) % cps;
      const bool self = f == card;
      for (int L = 0; L < lanes; ++L) {
        const double rows = S * BS * rowsPerToken / lanes;
        const double slots = S * BS * sh.cardSlots[card] / lanes;
        const double chunks = std::ceil(rows / batch);
        const double sumNs = summing ? slots * (row / c.mte + 2 * c.vectorNs(H * 4)) : 0.0;
        const double work = rows * (row + rb) / c.mte + sumNs + chunks * c.publishNs(self) +
                            (summing ? 0.0 : indexNs(L)) +
                            coupledNs(rows, t.queueChunks * batch, fwdPerRow);
        targets.add(std::max(work, ringLimitNs(chunks, t.queueChunks,
                                               roundTrip(self ? c.gm : c.hccsLat, batch * rb))),
                    self ? -1 : f, rows * rb);
        if (!self) {
          worstPair = std::max(worstPair, rows * lanes * rb);
          portOut += rows * rb;
        }
      }
    }
    const double senderCores = lockstepNs(targets, t.senderCores, c, false);
    const double senderShared = lockstepNs(targets, t.senderCores, c, lanes % t.senderCores == 0);
    const double hccsOutNs = c.switchFabric ? portOut / c.port : worstPair / c.pair;
    p.senderNs = std::max({senderCores, senderShared, hccsOutNs});
    p.senderLimit = p.senderNs == senderCores    ? "sender cores"
                    : p.senderNs == senderShared ? "sender cores sharing HCCS links"
                                                 : "HCCS out";
    // The card's NIC carries every partial bound for another server.
    const double nicOutNs = (S - 1) * BS * sh.serverHit[s] * pb / c.nic;
    p.forwarderNs = std::max(fwdCores, nicOutNs);
    p.forwarderLimit = p.forwarderNs == fwdCores ? "forwarder cores" : "NIC out";
    // Receiver: channels round-robin over the receiver cores; per partial (batches of one)
    // a poll, its read, an fp32 add and the accumulator row's read back and write (GM)
    // unless it is the token's first or last; per token the output row.
    std::vector<double> perChannel;
    double partialsIn = 0, remoteIn = 0;
    for (int S2 = 0; S2 < S; ++S2) {
      partialsIn += BS * sh.serverHit[S2];
      if (S2 != s) remoteIn += BS * sh.serverHit[S2];
    }
    double tokensHit = 1.0;
    for (int S2 = 0; S2 < S; ++S2) tokensHit *= 1.0 - sh.serverHit[S2];
    tokensHit = BS * (1.0 - tokensHit);
    // All but a token's first partial read its accumulator back, all but its last write it
    // (both waited for: the sum row is reused at once); per token the output row.
    const double recvChannel =
        (partialsIn * (c.consumeNs() + pb / c.mte + c.vectorNs(H * 4)) +
         (partialsIn - tokensHit) * 2 * c.awaitedCopyNs(acc) + tokensHit * c.awaitedCopyNs(row)) /
        channels;
    for (int ch = 0; ch < channels; ++ch) perChannel.push_back(recvChannel);
    const double recvCores = roundRobinMax(perChannel, t.receiverCores);
    const double nicInNs = remoteIn * pb / c.nic;
    p.receiverNs = std::max(recvCores, nicInNs);
    p.receiverLimit = p.receiverNs == recvCores ? "receiver cores" : "NIC in";
    // Without local sums the senders go expert by expert, and a token completes only when
    // its last expert's row arrives; a summing sender walks tokens, so they complete as it
    // goes.
    p.receiverAfter = !summing;
    const double chunk = static_cast<double>(t.chunkBytes);
    p.fillNs = 2 * chunk / c.mte + chunk / c.pair + c.hccsLat +
               (S > 1 ? c.post + c.rdmaLat + perPost * pb / c.nic : 0.0);
    if (p.stageNs() > worstNs) {
      worstNs = p.stageNs();
      worst = p;
    }
  }
  return worst;
}

}  // namespace

StagePrediction predictStage(const Scenario& scIn, const RoutingShares& shares, RingStage stage,
                             const RingTiling& t) {
  Scenario sc = scIn;
  (stage == RingStage::Dispatch ? sc.rings.dispatch : sc.rings.combine) = t;
  const Costs c(sc.hardware);
  return stage == RingStage::Dispatch ? predictDispatch(sc, shares, c)
                                      : predictCombine(sc, shares, c);
}

}  // namespace moe
