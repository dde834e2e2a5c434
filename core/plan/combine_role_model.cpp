// The streaming combine's roles in closed form (role_throughput.h): per card, the
// forwarder's lanes, the sender's targets and the receiver's channels for a candidate
// tiling, and the stage's fill.

#include <algorithm>
#include <cmath>

#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/plan/role_costs.h"
#include "core/runtime/record_layout.h"

namespace moe::role_model {

namespace {

// The shape, the tiling and the combine knobs every role of the combine reads.
struct CombineModel {
  CombineModel(const Scenario& sc, const RoutingShares& sh, const Costs& c)
      : sc(sc), sh(sh), c(c), t(sc.rings.combine), rec(recordLayout(sc)) {
    S = sc.cluster.servers, cps = sc.cluster.cardsPerServer, R = sc.cluster.ranks();
    BS = sc.model.tokensPerRank, H = sc.model.hidden;
    rb = static_cast<double>(rec.recordBytes);  // senders carry bf16 records
    row = static_cast<double>(rec.rowBytes);
    pb = static_cast<double>(partialRecordBytes(sc));
    acc = static_cast<double>(partialAccumBytes(sc));
    summing = sc.combine.sumLocalExperts;
    bf16Wire = sc.combine.partialDtype == PartialDtype::Bf16;
    combineLanesAndChannels(sc, lanes, channels);
    batch = static_cast<double>(std::max<std::int64_t>(1, t.chunkBytes / rec.recordBytes));
    window = static_cast<double>(combineUbWindowRows(sc));
    P = std::max(1, sc.placePerRank());
    perPost = std::max<double>(
        1.0, std::floor(static_cast<double>(
                            std::min(sc.combine.rdmaBatchBytes, t.chunkBytes * t.queueChunks)) /
                        pb));
  }
  const Scenario& sc;
  const RoutingShares& sh;
  const Costs& c;
  const RingTiling& t;
  const RecordLayout rec;
  int S, cps, R, lanes = 1, channels = 1;
  double BS, H, rb, row, pb, acc, batch, window, P, perPost;
  bool summing, bf16Wire;

  // Rows this card's experts send per token of an owner: one per kept slot, or one per
  // token and card when the sender sums its local experts (two fp32 vector passes each).
  double rowsPerToken(int card) const { return summing ? sh.cardHit[card] : sh.cardSlots[card]; }

  // Returns the forwarder cores' time, which the senders' coupling reads per row.
  double forwarder(int card, StagePrediction& p) const;
  double indexNs(int card, int lane) const;
  void sender(int card, double fwdPerRow, StagePrediction& p) const;
  void receiver(int card, StagePrediction& p) const;
  // The last RDMA batches: each partial ring to another server holds back up to a batch of
  // partials until its forwarder runs dry at the end of the stage, and the card's NIC then
  // carries all of them after everything else.
  double batchTailNs(int card) const {
    if (S == 1) return 0.0;
    const double ringPartials = std::max(1.0, BS / channels * sh.serverHit[card / cps]);
    return (S - 1) * channels * std::min(perPost, ringPartials) * pb / c.nic;
  }
  double fillNs() const {
    const double chunk = static_cast<double>(t.chunkBytes);
    return 2 * chunk / c.mte + chunk / c.pair + c.hccsLat +
           (S > 1 ? c.post + c.rdmaLat + perPost * pb / c.nic : 0.0);
  }
};

// Forwarder, lane by lane (one core each): rows from every card of this server for the
// owners with this card's local index, S * BS tokens. Per row a read and an fp32
// accumulate; a row whose token's partial is not in the UB window costs a spill of another
// and a read back (fp32 rows in GM). Per token and lane a partial leaves: to its own card a
// local copy with fence and tail; else into the RDMA batch, one post per batch.
double CombineModel::forwarder(int card, StagePrediction& p) const {
  const int s = card / cps;
  double serverRows = 0;
  for (int l = 0; l < cps; ++l) serverRows += rowsPerToken(s * cps + l);
  // The busiest lane: (server, channel) pairs are dealt round-robin over the lanes, so some
  // lanes take one pair more than others (combine_plan.h).
  const double pairs = static_cast<double>(S) * channels;
  const double laneShare = std::ceil(pairs / lanes) / pairs;
  const double tokensInLane = S * BS * sh.serverHit[s] * laneShare;
  const double rowsInLane = S * BS * serverRows * laneShare;
  // The senders walk expert by expert, so a token's rows arrive far apart: once the window
  // is full (more tokens open than rows), each row brought in evicts another (a spill), and
  // each row after its token's first reads its sum back.
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
  // The card's NIC carries every partial bound for another server.
  const double nicOutNs = (S - 1) * BS * sh.serverHit[s] * pb / c.nic;
  p.forwarderNs = std::max(fwdCores, nicOutNs);
  p.forwarderLimit = p.forwarderNs == fwdCores ? "forwarder cores" : "NIC out";
  return rowsInLane > 0 ? fwdCores / rowsInLane : 0.0;
}

// A target reads the index blocks (12 + 4 B per row) of every (local expert, owner) whose
// server its lane serves, all of that owner's rows, and skips the other lanes' tokens after
// reading: each block is one waited read per expert, and a server's rows are read once per
// lane serving it.
double CombineModel::indexNs(int card, int lane) const {
  int served = 0;
  for (int S2 = 0; S2 < S; ++S2)
    for (int ch = 0; ch < channels; ++ch)
      if ((S2 * channels + ch) % lanes == lane) {
        ++served;
        break;
      }
  return served * (P * c.gm + BS * sh.cardSlots[card] * 16 / c.mte);
}

// Sender: targets (forwarder card, lane) round-robin over the sender cores, in the kernel's
// order (senderTargetOrder). A target takes the rows of S owners (one per server) in its
// lane. Per row a gather and a ring write; per chunk the fence and tail word; per 256 rows
// an index block read.
void CombineModel::sender(int card, double fwdPerRow, StagePrediction& p) const {
  const int s = card / cps;
  Targets targets;
  double worstPair = 0, portOut = 0;
  for (const SenderTargetSlot& slot : senderTargetOrder(cps, lanes, card % cps)) {
    const int L = slot.lane;
    const int f = s * cps + slot.localCard;
    const bool self = f == card;
    const double rows = S * BS * rowsPerToken(card) / lanes;
    const double slots = S * BS * sh.cardSlots[card] / lanes;
    const double chunks = std::ceil(rows / batch);
    const double sumNs = summing ? slots * (row / c.mte + 2 * c.vectorNs(H * 4)) : 0.0;
    const double work = rows * (row + rb) / c.mte + sumNs + chunks * c.publishNs(self) +
                        (summing ? 0.0 : indexNs(card, L)) +
                        coupledNs(rows, t.queueChunks * batch, fwdPerRow);
    targets.add(std::max(work, ringLimitNs(chunks, t.queueChunks,
                                           c.ringRoundTripNs(self ? c.gm : c.hccsLat, batch * rb))),
                self ? -1 : f, rows * rb);
    if (!self) {
      worstPair = std::max(worstPair, rows * lanes * rb);
      portOut += rows * rb;
    }
  }
  const double senderCores = lockstepNs(targets, t.senderCores, c, false);
  const double senderShared = lockstepNs(targets, t.senderCores, c, true);
  const double hccsOutNs = c.switchFabric ? portOut / c.port : worstPair / c.pair;
  p.senderNs = std::max({senderCores, senderShared, hccsOutNs});
  p.senderLimit = p.senderNs == senderCores    ? "sender cores"
                  : p.senderNs == senderShared ? "sender cores sharing HCCS links"
                                               : "HCCS out";
}

// Receiver: channels round-robin over the receiver cores; per partial (batches of one) a
// poll, its read, an fp32 add and the accumulator row's read back and write (GM) unless it
// is the token's first or last; per token the output row.
void CombineModel::receiver(int card, StagePrediction& p) const {
  const int s = card / cps;
  double partialsIn = 0, remoteIn = 0, noServer = 1.0;
  for (int S2 = 0; S2 < S; ++S2) {
    partialsIn += BS * sh.serverHit[S2];
    if (S2 != s) remoteIn += BS * sh.serverHit[S2];
    noServer *= 1.0 - sh.serverHit[S2];
  }
  const double tokensHit = BS * (1.0 - noServer);
  // All but a token's first partial read its accumulator back, all but its last write it
  // (both waited for: the sum row is reused at once); per token the output row.
  const double recvChannel =
      (partialsIn * (c.consumeNs() + pb / c.mte + c.vectorNs(H * 4)) +
       (partialsIn - tokensHit) * 2 * c.awaitedCopyNs(acc) + tokensHit * c.awaitedCopyNs(row)) /
      channels;
  const std::vector<double> perChannel(static_cast<std::size_t>(channels), recvChannel);
  const double recvCores = roundRobinMax(perChannel, t.receiverCores);
  const double nicInNs = remoteIn * pb / c.nic;
  p.receiverNs = std::max(recvCores, nicInNs);
  p.receiverLimit = p.receiverNs == recvCores ? "receiver cores" : "NIC in";
  // Without local sums the senders go expert by expert, and a token completes only when its
  // last expert's row arrives; a summing sender walks tokens, so they complete as it goes.
  p.receiverAfter = !summing;
}

}  // namespace

StagePrediction predictCombine(const Scenario& sc, const RoutingShares& sh, const Costs& c) {
  const CombineModel m(sc, sh, c);
  return slowestCard(m.R, [&](int card) {
    StagePrediction p;
    p.card = card;
    const double fwdPerRow = m.forwarder(card, p);
    m.sender(card, fwdPerRow, p);
    m.receiver(card, p);
    p.fillNs = m.fillNs() + m.batchTailNs(card);
    return p;
  });
}

}  // namespace moe::role_model
