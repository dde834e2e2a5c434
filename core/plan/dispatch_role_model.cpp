// The streaming dispatch's roles in closed form (role_throughput.h): per card, the sender's,
// forwarder's and receiver's time for a candidate tiling, and the stage's fill.

#include <algorithm>
#include <cmath>

#include "core/plan/dispatch_tiling.h"
#include "core/plan/role_costs.h"
#include "core/runtime/record_layout.h"

namespace moe::role_model {

namespace {

// The shape, the tiling and the per-row costs every role of the dispatch reads.
struct DispatchModel {
  DispatchModel(const Scenario& sc, const RoutingShares& sh, const Costs& c)
      : sc(sc), sh(sh), c(c), t(sc.rings.dispatch), rec(recordLayout(sc)) {
    S = sc.cluster.servers, cps = sc.cluster.cardsPerServer, R = sc.cluster.ranks();
    BS = sc.model.tokensPerRank;
    rb = static_cast<double>(rec.dispatchRecordBytes);
    row = static_cast<double>(rec.rowBytes);
    C = dispatchRdmaChannels(sc);
    channelQueue = dispatchChannelQueueChunks(sc);
    senderBatch = static_cast<double>(std::max<std::int64_t>(1, t.chunkBytes / rec.recordBytes));
    fwdBatch =
        static_cast<double>(std::max<std::int64_t>(1, t.chunkBytes / rec.dispatchRecordBytes));
    recvBatch = senderBatch;  // receivers batch as many as bf16 records fit
    // fp8 and int8 rows are packed by the sender and unpacked by the receiver (vector work).
    packNs = sc.model.dispatchDtype != DispatchDtype::Bf16 ? c.vectorNs(row) : 0.0;
  }
  const Scenario& sc;
  const RoutingShares& sh;
  const Costs& c;
  const RingTiling& t;
  const RecordLayout rec;
  int S, cps, R, C, channelQueue;
  double BS, rb, row, senderBatch, fwdBatch, recvBatch, packNs;

  // The cards of server `srv` a row sent there goes to, on average.
  double fanOutOf(int srv) const {
    double f = 0;
    for (int l = 0; l < cps; ++l) f += sh.cardHit[srv * cps + l];
    return f / std::max(1e-12, sh.serverHit[srv]);
  }
  // Per row a forwarder on server `srv` spends: read, fan-out writes, its batch's share of
  // the poll, fence and tail words.
  double fwdPerRow(int srv) const {
    const double fan = fanOutOf(srv);
    const double touched = std::min<double>(cps, fwdBatch * fan);
    return (1 + fan) * rb / c.mte + (c.consumeNs() + c.hccsLat * (1 + touched)) / fwdBatch;
  }
  // Per row a receiver on card `d` spends: read, one placement per slot, its batch's share
  // of the poll, fence and head word.
  double slotsPerRow(int d) const { return sh.cardSlots[d] / std::max(1e-12, sh.cardHit[d]); }
  double recvPerRow(int d) const {
    return rb / c.mte + packNs + slotsPerRow(d) * (row + 2 * c.dmaAlign) / c.mte +
           (c.consumeNs() + c.gm) / recvBatch;
  }

  void sender(int card, StagePrediction& p) const;
  void forwarder(int card, StagePrediction& p) const;
  void receiver(int card, StagePrediction& p) const;
  // The first chunk is gathered, crosses the NIC, is forwarded, crosses HCCS and is placed
  // before the slowest role can run at its pace; each hop's latency too.
  double fillNs() const {
    const double chunk = static_cast<double>(t.chunkBytes);
    return (S > 1 ? c.rdmaLat + c.post + chunk / c.nic : 0.0) + 2 * c.hccsLat + 3 * chunk / c.mte +
           chunk / c.pair;
  }
};

// Sender: per target, gather each row into UB and write it out (two crossings of the core's
// DMA port), plus per chunk the fence and the tail word (IPC) or the copy to the GM stage
// and one RDMA post (remote). RDMA targets (each other server's channels) come first in the
// round-robin, then the local cards, as the launcher deals them.
void DispatchModel::sender(int card, StagePrediction& p) const {
  const int s = card / cps;
  Targets targets;
  double nicOut = 0, worstPair = 0, portOut = 0;
  for (int ch = 0; ch < C; ++ch)
    for (int i = 1; i < S; ++i) {
      const int other = (s + i) % S;
      const double rows = BS * sh.serverHit[other] / C;
      const double chunks = std::ceil(rows / senderBatch);
      const double work = rows * (row + 2 * rb) / c.mte + rows * packNs + chunks * (c.gm + c.post) +
                          coupledNs(rows, channelQueue * senderBatch, fwdPerRow(other));
      targets.add(std::max(work, ringLimitNs(chunks, channelQueue,
                                             c.ringRoundTripNs(c.rdmaLat, fwdBatch * rb))),
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
    targets.add(
        std::max(work, ringLimitNs(chunks, t.queueChunks,
                                   c.ringRoundTripNs(self ? c.gm : c.hccsLat, recvBatch * rb))),
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
}

// Forwarder: one RDMA ring per (other server, channel), each from this card's peer on that
// server, dealt round-robin over the forwarder cores. Per row: read it into UB and write it
// to each card of this server it goes to; per batch a poll, the head word and one fence and
// tail word per touched card.
void DispatchModel::forwarder(int card, StagePrediction& p) const {
  const int s = card / cps;
  if (S <= 1) {
    p.forwarderLimit = "no other server";
    return;
  }
  const double fanOut = fanOutOf(s);
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
  const double fwdCores = roundRobinMax(rings, t.forwarderCores);
  const double nicInNs = nicIn / c.nic;
  p.forwarderNs = std::max(fwdCores, nicInNs);
  p.forwarderLimit = p.forwarderNs == fwdCores ? "forwarder cores" : "NIC in";
}

// Receiver: a direct ring from each card of this server, then per (card, other server,
// channel) a forwarded one. Per row: read it (fp8 rows unpacked on the way) and place one
// copy per slot of the token on this card's experts (with its scale and index, two tiny
// writes); per batch a poll, the read's landing, the fence and the head word.
void DispatchModel::receiver(int card, StagePrediction& p) const {
  std::vector<double> recv;
  const double perSource = BS * sh.cardHit[card];
  auto drain = [&](double rows) {
    return rows * (rb / c.mte + packNs + slotsPerRow(card) * (row + 2 * c.dmaAlign) / c.mte) +
           std::ceil(rows / recvBatch) * (c.consumeNs() + c.gm);
  };
  for (int l = 0; l < cps; ++l) recv.push_back(drain(perSource));
  for (int l = 0; l < cps; ++l)
    for (int i = 1; i < S; ++i)
      for (int ch = 0; ch < C; ++ch) recv.push_back(drain(perSource / C));
  const double recvCores = roundRobinMax(recv, t.receiverCores);
  // Each peer card's pair link carries its direct rows and what it forwards from the other
  // servers; a switch port takes all of them.
  const double hccsInNs =
      c.switchFabric ? (cps - 1) * S * perSource * rb / c.port : S * perSource * rb / c.pair;
  p.receiverNs = std::max(recvCores, hccsInNs);
  p.receiverLimit = p.receiverNs == recvCores ? "receiver cores" : "HCCS in";
}

}  // namespace

StagePrediction predictDispatch(const Scenario& sc, const RoutingShares& sh, const Costs& c) {
  const DispatchModel m(sc, sh, c);
  return slowestCard(m.R, [&](int card) {
    StagePrediction p;
    p.card = card;
    m.sender(card, p);
    m.forwarder(card, p);
    m.receiver(card, p);
    p.fillNs = m.fillNs();
    return p;
  });
}

}  // namespace moe::role_model
