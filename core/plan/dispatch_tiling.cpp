#include "core/plan/dispatch_tiling.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/plan/combine_plan.h"
#include "core/plan/role_throughput.h"
#include "core/runtime/record_layout.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

namespace moe {

int dispatchRdmaChannels(const Scenario& sc) {
  const int others = sc.cluster.servers - 1;
  if (others < 1) return 1;
  const int perServer = sc.rings.dispatch.forwarderCores / others;
  return std::max(1, std::min(sc.model.tokensPerRank, perServer));
}

int dispatchChannelQueueChunks(const Scenario& sc) {
  return std::max(2, sc.rings.dispatch.queueChunks / dispatchRdmaChannels(sc));
}

std::int64_t streamingDispatchChannelRingsPerCard(const Scenario& sc) {
  const std::int64_t S = sc.cluster.servers, cps = sc.cluster.cardsPerServer;
  return (S - 1) * dispatchRdmaChannels(sc) * (cps + 1);
}

std::int64_t streamingDispatchRingBytesPerCard(const Scenario& sc) {
  const std::int64_t chunk = sc.rings.dispatch.chunkBytes;
  return sc.cluster.cardsPerServer * sc.rings.dispatch.queueChunks * chunk +
         streamingDispatchChannelRingsPerCard(sc) * dispatchChannelQueueChunks(sc) * chunk;
}

std::int64_t combineForwarderFixedUb(const Scenario& sc) {
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t batch =
      std::max<std::int64_t>(1, sc.rings.combine.chunkBytes / rec.recordBytes);
  const std::int64_t wire =
      sc.combine.partialDtype == PartialDtype::Bf16 ? partialRecordBytes(sc) : 0;
  return batch * rec.recordBytes + wire;
}

int combineUbWindowRows(const Scenario& sc) {
  if (sc.combine.ubWindowRows > 0) return sc.combine.ubWindowRows;
  const std::int64_t left = sc.hardware.ubBytes - combineForwarderFixedUb(sc);
  const std::int64_t rows = left / partialAccumBytes(sc);
  return static_cast<int>(std::clamp<std::int64_t>(rows, 1, kMaxAutoWindowRows));
}

namespace {
// A summing combine sender (combine.sum_local_experts): its index block (256 rows of 12 + 4
// B), an fp32 sum row, two expert rows and at least one staged record; 0 when it is off.
std::int64_t summingCombineSenderUb(const Scenario& sc) {
  if (!sc.combine.sumLocalExperts) return 0;
  const RecordLayout rec = recordLayout(sc);
  return 256 * 16 + alignUp(sc.model.hidden * 4LL, 32) + 2 * alignUp(rec.rowBytes, 32) +
         rec.recordBytes;
}
}  // namespace

RoleUbNeeds streamingUbNeeds(const Scenario& sc, int P, RingStage stage) {
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t BS = sc.model.tokensPerRank, K = sc.model.topk, R = sc.cluster.ranks();
  const std::int64_t chunk = sc.rings.of(stage).chunkBytes;
  const std::int64_t W = routingWindowTokens(static_cast<int>(BS));  // routing staged per window
  const std::int64_t routing = alignUp(W * K * 4, 32) * 2 + alignUp(W * K, 32);
  if (stage == RingStage::Combine)
    return RoleUbNeeds{
        // ids, mask, weights + 2 staging chunks, or a summing sender's rows
        std::max(routing + 2 * chunk, summingCombineSenderUb(sc)),
        combineForwarderFixedUb(sc) + combineUbWindowRows(sc) * partialAccumBytes(sc),
        0,  // the combine receiver's buffers are not modelled in UB
    };
  const std::int64_t counts = alignUp(R * dispatchRdmaChannels(sc) * (2 + P) * 4, 32);
  const std::int64_t batch = std::max<std::int64_t>(1, chunk / rec.recordBytes);
  const std::int64_t tables = alignUp(P * R * 4, 32) * 2 + alignUp(P * 4LL, 32);
  // Forwarders and receivers hold dispatch records (fp8 and int8 ones are smaller); such a
  // receiver also holds its batch dequantized to bf16 rows.
  const std::int64_t fwdBatch = std::max<std::int64_t>(1, chunk / rec.dispatchRecordBytes);
  const std::int64_t rows =
      sc.model.dispatchDtype != DispatchDtype::Bf16 ? batch * alignUp(rec.rowBytes, 32) : 0;
  return RoleUbNeeds{
      routing + 2 * chunk,  // ids, mask, weights + 2 staging chunks
      counts + fwdBatch * rec.dispatchRecordBytes,
      counts + tables + batch * rec.dispatchRecordBytes + rows +
          batch * placeSideBytes(static_cast<int>(K)),
  };
}

RoleUbNeeds streamingUbNeeds(const Scenario& sc, int P) {
  const RoleUbNeeds d = streamingUbNeeds(sc, P, RingStage::Dispatch);
  const RoleUbNeeds c = streamingUbNeeds(sc, P, RingStage::Combine);
  return RoleUbNeeds{std::max(d.sender, c.sender), std::max(d.forwarder, c.forwarder),
                     std::max(d.receiver, c.receiver)};
}

namespace {

// One stage's tiling (both stages' when they share one): records fit a chunk, a queue
// holds two chunks, the role cores fit the card. `path` names it as the JSON writes it.
void validateRingTiling(const Scenario& sc, const RingTiling& t, const std::string& path,
                        bool combine) {
  const RecordLayout rec = recordLayout(sc);
  const HardwareProfile& hw = sc.hardware;
  // Both stages move bf16 row records (the combine's senders stage expert outputs so).
  require(t.chunkBytes >= rec.recordBytes, path + ".chunk_bytes",
          "a chunk of " + std::to_string(t.chunkBytes) + " B is smaller than one record (" +
              std::to_string(rec.recordBytes) + " B: " + std::to_string(rec.metaBytes) +
              " B header + " + std::to_string(rec.rowBytes) + " B row)");
  if (combine)
    require(t.chunkBytes >= partialRecordBytes(sc), path + ".chunk_bytes",
            "a chunk of " + std::to_string(t.chunkBytes) +
                " B is smaller than one combine partial record (" +
                std::to_string(partialRecordBytes(sc)) + " B: header + " +
                toString(sc.combine.partialDtype) + " row)");
  require(t.queueChunks >= 2, path + ".queue_chunks",
          "a ring needs at least 2 chunks so the producer can fill one while the consumer drains "
          "the other (got " +
              std::to_string(t.queueChunks) + ")");
  require(t.senderCores + t.forwarderCores + t.receiverCores <= hw.aivCores, path,
          "sender + forwarder + receiver cores (" +
              std::to_string(t.senderCores + t.forwarderCores + t.receiverCores) +
              ") exceed the card's " + std::to_string(hw.aivCores) + " AIV cores");
}

}  // namespace

void validateDispatchTiling(const Scenario& sc, int P) {
  const HardwareProfile& hw = sc.hardware;
  const std::int64_t ub = hw.ubBytes;
  if (sc.rings.same()) {
    validateRingTiling(sc, sc.rings.dispatch, "rings", true);
  } else {
    validateRingTiling(sc, sc.rings.dispatch, "rings.dispatch", false);
    validateRingTiling(sc, sc.rings.combine, "rings.combine", true);
  }
  // The experts stream their rows through L1 (an AIC core's local buffer) a tile at a
  // time: at least one bf16 row must fit, or the run would stop at the experts stage.
  const std::int64_t l1Row =
      alignUp(static_cast<std::int64_t>(sc.model.hidden) * 2, hw.dmaAlignBytes);
  require(l1Row <= hw.l1Bytes, "hardware.overrides.l1_bytes",
          std::to_string(hw.l1Bytes) + " B cannot hold one expert input row (hidden " +
              std::to_string(sc.model.hidden) +
              " x 2 B, aligned to dma_align_bytes: " + std::to_string(l1Row) + " B)");
  const std::int64_t summing = summingCombineSenderUb(sc);
  require(summing <= ub, "combine.sum_local_experts",
          "UB overflow: a summing combine sender needs " + std::to_string(summing) +
              " B (an fp32 sum row, two expert rows, one record and its index block) but UB "
              "(hardware.overrides.ub_bytes) holds " +
              std::to_string(ub) + " B; turn it off or use a larger UB");
  // Each role's UB, per stage (both at once when they share a tiling: a role then needs
  // the larger of its two stages' buffers).
  std::vector<std::pair<RoleUbNeeds, std::string>> needs;
  if (sc.rings.same())
    needs.push_back({streamingUbNeeds(sc, P), "rings.chunk_bytes"});
  else
    for (RingStage st : {RingStage::Dispatch, RingStage::Combine})
      needs.push_back({streamingUbNeeds(sc, P, st), sc.rings.path(st) + ".chunk_bytes"});
  for (const auto& [need, field] : needs) {
    auto fits = [&](std::int64_t bytes, const char* role) {
      require(bytes <= ub, field,
              std::string("UB overflow: a ") + role + " core needs " + std::to_string(bytes) +
                  " B (staging + read buffers + routing tables) but UB "
                  "(hardware.overrides.ub_bytes) holds " +
                  std::to_string(ub) + " B; use smaller chunks or a larger UB");
    };
    fits(need.sender, "sender");
    if (sc.combine.ubWindowRows > 0)
      require(need.forwarder <= ub, "combine.ub_window_rows",
              "UB overflow: " + std::to_string(sc.combine.ubWindowRows) + " window rows of " +
                  std::to_string(partialAccumBytes(sc)) +
                  " B beside the forwarder's read batch need " + std::to_string(need.forwarder) +
                  " B but UB holds " + std::to_string(ub) + " B; use fewer rows or 0 (auto)");
    fits(need.forwarder, "forwarder");
    fits(need.receiver, "receiver");
  }
}

std::int64_t streamingRingBytesPerCard(const Scenario& sc) {
  const std::int64_t S = sc.cluster.servers, cps = sc.cluster.cardsPerServer;
  int lanes = 1, channels = 1;
  combineLanesAndChannels(sc, lanes, channels);
  // Dispatch (streamingDispatchRingBytesPerCard); combine: IPC rings per (peer, forwarder
  // lane) and partial rings per (server, channel).
  const std::int64_t combineRings = cps * lanes + S * static_cast<std::int64_t>(channels);
  return streamingDispatchRingBytesPerCard(sc) +
         combineRings * sc.rings.combine.queueChunks * sc.rings.combine.chunkBytes;
}

const std::vector<std::int64_t>& tilingChunkGrid() {
  static const std::vector<std::int64_t> grid = {16 << 10,  32 << 10,  64 << 10,
                                                 128 << 10, 256 << 10, 512 << 10};
  return grid;
}

namespace {

// The values the proposal tries per knob besides the chunk: the tuner's grid
// (tune_knobs.cpp), but for the tuner's forwarder counts 10 and 14: added for the engine's
// search, not yet checked against the model's proposals (README quotes those as measured).
constexpr int kQueues[] = {2, 4, 8, 16, 32};
constexpr int kSenders[] = {2, 4, 6, 8, 12, 16};
constexpr int kForwarders[] = {1, 2, 4, 6, 8, 12, 16};
constexpr int kReceivers[] = {2, 4, 6, 8, 12, 16};

// Ring bytes per card of one stage (streamingRingBytesPerCard splits into the two).
std::int64_t stageRingBytes(const Scenario& sc, RingStage stage) {
  const std::int64_t dispatch = streamingDispatchRingBytesPerCard(sc);
  return stage == RingStage::Dispatch ? dispatch : streamingRingBytesPerCard(sc) - dispatch;
}

// A candidate ranks before another when the model says it is faster by more than 1% (the
// model's own resolution). Nearly equal ones (typically all bound by the same NIC, which no
// tiling speeds up) are ranked by the sum of their role times: the engine's critical paths
// cross every role (a row waits in the forwarder, then the NIC, then the receiver), so a
// role that is not the bottleneck still adds its own latency. Then the deeper queue (a
// producer serving its targets one after another keeps its consumers fed from the ring; the
// model's ring round trip is the only place depth enters, so at equal times depth is
// taken as a margin), then fewer cores (idle cores are left for other work).
// Times in steps of 1% (a strict order, unlike "within 1%").
std::int64_t percentStep(double ns) {
  return static_cast<std::int64_t>(std::floor(std::log(std::max(ns, 1.0)) / std::log(1.01)));
}
bool better(const TilingCandidate& a, const TilingCandidate& b) {
  auto key = [](const TilingCandidate& c) {
    const StagePrediction& p = c.prediction;
    const RingTiling& t = c.tiling;
    return std::make_tuple(percentStep(p.stageNs()),
                           percentStep(p.senderNs + p.forwarderNs + p.receiverNs), -t.queueChunks,
                           t.senderCores + t.forwarderCores + t.receiverCores, t.chunkBytes,
                           t.senderCores, t.forwarderCores);
  };
  return key(a) < key(b);
}

}  // namespace

std::vector<TilingCandidate> rankTilings(const Scenario& scIn, int P, RingStage stage,
                                         std::size_t keep) {
  Scenario sc = scIn;
  const HardwareProfile& hw = sc.hardware;
  const RoutingShares shares = routingShares(sc);
  RingTiling& t = stage == RingStage::Dispatch ? sc.rings.dispatch : sc.rings.combine;
  const std::int64_t minChunk =
      stage == RingStage::Dispatch ? recordLayout(sc).recordBytes
                                   : std::max(recordLayout(sc).recordBytes, partialRecordBytes(sc));
  std::vector<TilingCandidate> best;
  auto search = [&](std::int64_t chunk) {
    for (int queue : kQueues) {
      t.chunkBytes = chunk;
      t.queueChunks = queue;
      for (int ns : kSenders)
        for (int nf : kForwarders)
          for (int nr : kReceivers) {
            if (ns + nf + nr > hw.aivCores) continue;
            t.senderCores = ns;
            t.forwarderCores = nf;
            t.receiverCores = nr;
            // Each role's UB for this stage, and half the rings' HBM budget (the other
            // stage takes the other half).
            const RoleUbNeeds need = streamingUbNeeds(sc, P, stage);
            if (std::max({need.sender, need.forwarder, need.receiver}) > hw.ubBytes) continue;
            if (stageRingBytes(sc, stage) > ringHbmBudget(sc) / 2) continue;
            TilingCandidate cand{t, predictStage(sc, shares, stage, t)};
            auto at = std::lower_bound(best.begin(), best.end(), cand, better);
            if (static_cast<std::size_t>(at - best.begin()) >= keep) continue;
            best.insert(at, cand);
            if (best.size() > keep) best.pop_back();
          }
    }
  };
  for (std::int64_t c : tilingChunkGrid())
    if (c >= minChunk) search(c);
  // No chunk of the grid fits (a large H, a small UB): one record per chunk.
  if (best.empty()) search(alignUp(minChunk, 32));
  return best;
}

RingTilings proposeTiling(const Scenario& scIn, int P) {
  Scenario sc = scIn;
  for (RingStage stage : {RingStage::Dispatch, RingStage::Combine}) {
    const std::vector<TilingCandidate> ranked = rankTilings(sc, P, stage, 1);
    require(!ranked.empty(), stage == RingStage::Dispatch ? "rings.dispatch" : "rings.combine",
            "no tiling fits: every chunk size, queue depth and core split overflows UB "
            "(hardware.overrides.ub_bytes) or the ring budget (1/16 of hardware.overrides."
            "hbm_bytes)");
    (stage == RingStage::Dispatch ? sc.rings.dispatch : sc.rings.combine) = ranked.front().tiling;
  }
  validateDispatchTiling(sc, P);
  return sc.rings;
}

}  // namespace moe
