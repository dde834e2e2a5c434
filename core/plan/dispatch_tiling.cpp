#include "core/plan/dispatch_tiling.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/plan/combine_plan.h"
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

RingTilings proposeTiling(const Scenario& scIn, int P) {
  Scenario sc = scIn;
  const HardwareProfile& hw = sc.hardware;
  // One tiling for both stages: each check below reads it through sc.
  RingTiling t;
  auto apply = [&] { sc.rings.setBoth(t); };
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
    apply();
    const RoleUbNeeds need = streamingUbNeeds(sc, P);
    if (std::max({need.sender, need.forwarder, need.receiver}) <= hw.ubBytes) break;
    t.chunkBytes = alignUp(minChunk, 32);
  }
  // Rings per card within the HBM budget.
  t.queueChunks = 8;
  apply();
  while (t.queueChunks > 2 && streamingRingBytesPerCard(sc) > ringHbmBudget(sc)) {
    t.queueChunks /= 2;
    apply();
  }
  apply();
  validateDispatchTiling(sc, P);
  return sc.rings;
}

}  // namespace moe
