#include "core/run/design_memory.h"

#include <algorithm>

#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/protocol/ring_buffer.h"
#include "core/runtime/record_layout.h"

namespace moe {

namespace {

// The scenario's shape in the units the rules count in.
struct Shape {
  std::int64_t R, cps, S, BS, K, H, P, row, bk;
  RecordLayout rec;
  Shape(const Scenario& sc, int placePerRank)
      : R(sc.cluster.ranks()),
        cps(sc.cluster.cardsPerServer),
        S(sc.cluster.servers),
        BS(sc.model.tokensPerRank),
        K(sc.model.topk),
        H(sc.model.hidden),
        P(placePerRank),
        rec(recordLayout(sc)) {
    row = rec.rowBytes;
    bk = BS * K;
  }
};

}  // namespace

DesignMemory streamingMemory(const Scenario& sc, int placePerRank) {
  const Shape s(sc, placePerRank);
  const std::int64_t combineRing = sc.rings.combine.chunkBytes * sc.rings.combine.queueChunks;
  // Windows into one card: a ring per local card and per RDMA channel.
  const std::int64_t dispatchRings = s.cps + streamingDispatchChannelRingsPerCard(sc);
  const std::int64_t dispatchRingBytes =
      streamingDispatchRingBytesPerCard(sc) + dispatchRings * 2 * kControlLineBytes;
  // The streaming combine as core/plan/combine_plan lays it out: IPC rings per (local card,
  // lane), partial rings per (server, channel), and on each forwarder card two staging halves
  // of one RDMA batch per (other server, channel) it sends partials to.
  int lanes = 1, channels = 1;
  combineLanesAndChannels(sc, lanes, channels);
  const std::int64_t pb = partialRecordBytes(sc);
  const std::int64_t perPost =
      std::max<std::int64_t>(1, std::min(sc.combine.rdmaBatchBytes, combineRing) / pb);
  const std::int64_t batchStaging = (s.S - 1) * channels * 2 * perPost * pb;
  const std::int64_t combineRings = s.cps * lanes + s.S * channels;
  const std::int64_t fp32Tokens = s.BS * s.H * 4;  // one fp32 buffer of every token
  DesignMemory m;
  m.label = "rings (dispatch and combine)";
  m.reservedBytes =
      dispatchRingBytes + combineRings * (combineRing + 2 * kControlLineBytes) + batchStaging;
  // Rings cycle: every ring is touched whole.
  m.dispatchWritten = streamingDispatchRingBytesPerCard(sc);
  m.combineWritten = combineRings * (combineRing + 2 * kControlLineBytes) + batchStaging +
                     s.S * fp32Tokens + fp32Tokens;
  return m;
}

DesignMemory phasedMemory(const Scenario& sc, int placePerRank) {
  const Shape s(sc, placePerRank);
  // Windows into one card: direct from each local card, one RDMA per other server, and one
  // forward per (local card, other server).
  const std::int64_t dispatchLinks = s.cps + (s.S - 1) * (s.cps + 1);
  const std::int64_t slots = s.S * s.BS * std::min(s.K, s.P);
  const std::int64_t fp32Tokens = s.BS * s.H * 4;
  DesignMemory m;
  m.label = "phased windows (dispatch and combine)";
  m.reservedBytes = dispatchLinks * s.BS * s.rec.recordBytes + s.cps * slots * s.rec.recordBytes +
                    s.S * 2 * fp32Tokens;
  // Windows: each received row written once.
  m.dispatchWritten = s.bk * s.rec.dispatchRecordBytes;
  m.combineWritten = s.bk * s.rec.recordBytes + 2 * s.S * fp32Tokens;
  return m;
}

DesignMemory flatMemory(const Scenario& sc, int placePerRank) {
  const Shape s(sc, placePerRank);
  DesignMemory m;
  m.label = "flat windows (dispatch and combine)";
  m.reservedBytes =
      s.R * s.BS * s.rec.dispatchRecordBytes + s.R * s.BS * std::min(s.K, s.P) * s.row;
  m.dispatchWritten = s.bk * s.rec.dispatchRecordBytes;
  m.combineWritten = s.bk * s.row;
  return m;
}

}  // namespace moe
