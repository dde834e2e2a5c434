#include "core/plan/dispatch_tiling.h"

#include <algorithm>

#include "core/plan/combine_plan.h"
#include "core/runtime/record_layout.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

namespace moe {

int dispatchRdmaChannels(const Scenario& sc) {
  const int others = sc.cluster.servers - 1;
  if (others < 1) return 1;
  const int perServer = sc.rings.forwarderCores / others;
  return std::max(1, std::min(sc.model.tokensPerRank, perServer));
}

int dispatchChannelQueueChunks(const Scenario& sc) {
  return std::max(2, sc.rings.queueChunks / dispatchRdmaChannels(sc));
}

std::int64_t streamingDispatchChannelRingsPerCard(const Scenario& sc) {
  const std::int64_t S = sc.cluster.servers, cps = sc.cluster.cardsPerServer;
  return (S - 1) * dispatchRdmaChannels(sc) * (cps + 1);
}

std::int64_t streamingDispatchRingBytesPerCard(const Scenario& sc) {
  const std::int64_t chunk = sc.rings.chunkBytes;
  return sc.cluster.cardsPerServer * sc.rings.queueChunks * chunk +
         streamingDispatchChannelRingsPerCard(sc) * dispatchChannelQueueChunks(sc) * chunk;
}

std::int64_t combineForwarderFixedUb(const Scenario& sc) {
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t batch = std::max<std::int64_t>(1, sc.rings.chunkBytes / rec.recordBytes);
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

RoleUbNeeds streamingUbNeeds(const Scenario& sc, int P) {
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t BS = sc.model.tokensPerRank, K = sc.model.topk, R = sc.cluster.ranks();
  const std::int64_t chunk = sc.rings.chunkBytes;
  const std::int64_t W = routingWindowTokens(static_cast<int>(BS));  // routing staged per window
  const std::int64_t routing = alignUp(W * K * 4, 32) * 2 + alignUp(W * K, 32);
  const std::int64_t counts = alignUp(R * dispatchRdmaChannels(sc) * (2 + P) * 4, 32);
  const std::int64_t batch = std::max<std::int64_t>(1, chunk / rec.recordBytes);
  const std::int64_t tables = alignUp(P * R * 4, 32) * 2 + alignUp(P * 4LL, 32);
  const std::int64_t combineForwarder =
      combineForwarderFixedUb(sc) + combineUbWindowRows(sc) * partialAccumBytes(sc);
  // Forwarders and receivers hold dispatch records (fp8 and int8 ones are smaller); such a
  // receiver also holds its batch dequantized to bf16 rows.
  const std::int64_t fwdBatch = std::max<std::int64_t>(1, chunk / rec.dispatchRecordBytes);
  const std::int64_t rows =
      sc.model.dispatchDtype != DispatchDtype::Bf16 ? batch * alignUp(rec.rowBytes, 32) : 0;
  return RoleUbNeeds{
      std::max(routing + 2 * chunk,
               summingCombineSenderUb(sc)),  // ids, mask, weights + 2 staging chunks
      std::max(counts + fwdBatch * rec.dispatchRecordBytes, combineForwarder),
      counts + tables + batch * rec.dispatchRecordBytes + rows +
          batch * placeSideBytes(static_cast<int>(K)),
  };
}

void validateDispatchTiling(const Scenario& sc, int P) {
  const RingTiling& t = sc.rings;
  const RecordLayout rec = recordLayout(sc);
  const HardwareProfile& hw = sc.hardware;
  const std::int64_t ub = hw.ubBytes;
  require(t.chunkBytes >= rec.recordBytes, "rings.chunk_bytes",
          "a chunk of " + std::to_string(t.chunkBytes) + " B is smaller than one record (" +
              std::to_string(rec.recordBytes) + " B: " + std::to_string(rec.metaBytes) +
              " B header + " + std::to_string(rec.rowBytes) + " B row)");
  require(t.chunkBytes >= partialRecordBytes(sc), "rings.chunk_bytes",
          "a chunk of " + std::to_string(t.chunkBytes) +
              " B is smaller than one combine partial record (" +
              std::to_string(partialRecordBytes(sc)) + " B: header + " +
              toString(sc.combine.partialDtype) + " row)");
  require(t.queueChunks >= 2, "rings.queue_chunks",
          "a ring needs at least 2 chunks so the producer can fill one while the consumer drains "
          "the other (got " +
              std::to_string(t.queueChunks) + ")");
  require(t.senderCores + t.forwarderCores + t.receiverCores <= hw.aivCores, "rings",
          "sender + forwarder + receiver cores (" +
              std::to_string(t.senderCores + t.forwarderCores + t.receiverCores) +
              ") exceed the card's " + std::to_string(hw.aivCores) + " AIV cores");
  // The experts stream their rows through L1 (an AIC core's local buffer) a tile at a
  // time: at least one bf16 row must fit, or the run would stop at the experts stage.
  const std::int64_t l1Row =
      alignUp(static_cast<std::int64_t>(sc.model.hidden) * 2, hw.dmaAlignBytes);
  require(l1Row <= hw.l1Bytes, "hardware.overrides.l1_bytes",
          std::to_string(hw.l1Bytes) + " B cannot hold one expert input row (hidden " +
              std::to_string(sc.model.hidden) +
              " x 2 B, aligned to dma_align_bytes: " + std::to_string(l1Row) + " B)");
  const RoleUbNeeds need = streamingUbNeeds(sc, P);
  auto fits = [&](std::int64_t bytes, const char* role) {
    require(bytes <= ub, "rings.chunk_bytes",
            std::string("UB overflow: a ") + role + " core needs " + std::to_string(bytes) +
                " B (staging + read buffers + routing tables) but UB (hardware.overrides.ub_bytes) "
                "holds " +
                std::to_string(ub) + " B; use smaller chunks or a larger UB");
  };
  const std::int64_t summing = summingCombineSenderUb(sc);
  require(summing <= ub, "combine.sum_local_experts",
          "UB overflow: a summing combine sender needs " + std::to_string(summing) +
              " B (an fp32 sum row, two expert rows, one record and its index block) but UB "
              "(hardware.overrides.ub_bytes) holds " +
              std::to_string(ub) + " B; turn it off or use a larger UB");
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

}  // namespace moe

namespace moe {

std::int64_t streamingRingBytesPerCard(const Scenario& sc) {
  const std::int64_t S = sc.cluster.servers, cps = sc.cluster.cardsPerServer;
  int lanes = 1, channels = 1;
  combineLanesAndChannels(sc, lanes, channels);
  // Dispatch (streamingDispatchRingBytesPerCard); combine: IPC rings per (peer, forwarder
  // lane) and partial rings per (server, channel).
  const std::int64_t combineRings = cps * lanes + S * static_cast<std::int64_t>(channels);
  return streamingDispatchRingBytesPerCard(sc) +
         combineRings * sc.rings.queueChunks * sc.rings.chunkBytes;
}

RingTiling proposeTiling(const Scenario& scIn, int P) {
  Scenario sc = scIn;
  const HardwareProfile& hw = sc.hardware;
  RingTiling& t = sc.rings;
  const int fifth = std::max(1, hw.aivCores / 5);
  t.senderCores = fifth;
  t.receiverCores = fifth;
  t.forwarderCores = fifth;  // channels give every forwarder core work (combine_plan.h)
  const std::int64_t minChunk = std::max(recordLayout(sc).recordBytes, partialRecordBytes(sc));
  t.chunkBytes = alignUp(minChunk, 32);  // the fallback: one record per chunk
  for (std::int64_t kib : {512, 256, 128, 64}) {
    const std::int64_t c = kib * 1024;
    if (c < minChunk) continue;
    t.chunkBytes = c;
    const RoleUbNeeds need = streamingUbNeeds(sc, P);
    if (std::max({need.sender, need.forwarder, need.receiver}) <= hw.ubBytes) break;
    t.chunkBytes = alignUp(minChunk, 32);
  }
  // Rings per card within the HBM budget.
  t.queueChunks = 8;
  while (t.queueChunks > 2 && streamingRingBytesPerCard(sc) > ringHbmBudget(sc)) t.queueChunks /= 2;
  validateDispatchTiling(sc, P);
  return t;
}

}  // namespace moe
