#include "core/plan/dispatch_tiling.h"

#include <algorithm>

#include "core/runtime/record_layout.h"
#include "core/util/error.h"

namespace moe {

RoleUbNeeds streamingUbNeeds(const Scenario& sc, int P) {
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t BS = sc.model.tokensPerRank, K = sc.model.topk, R = sc.cluster.ranks();
  const std::int64_t chunk = sc.rings.chunkBytes;
  const std::int64_t W = routingWindowTokens(static_cast<int>(BS));  // routing staged per window
  const std::int64_t routing = alignUp(W * K * 4, 32) * 2 + alignUp(W * K, 32);
  const std::int64_t counts = alignUp(R * (2 + P) * 4, 32);
  const std::int64_t batch = std::max<std::int64_t>(1, chunk / rec.recordBytes);
  const std::int64_t tables = alignUp(P * R * 4, 32) * 2 + alignUp(P * 4LL, 32);
  return RoleUbNeeds{
      routing + 2 * chunk,  // ids, mask, weights + double-buffered staging
      counts + batch * rec.recordBytes,
      counts + tables + batch * rec.recordBytes + batch * placeSideBytes(static_cast<int>(K)),
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
              std::to_string(partialRecordBytes(sc)) + " B: header + fp32 row)");
  require(t.queueChunks >= 2, "rings.queue_chunks",
          "a ring needs at least 2 chunks so the producer can fill one while the consumer drains "
          "the other (got " +
              std::to_string(t.queueChunks) + ")");
  require(t.senderCores + t.forwarderCores + t.receiverCores <= hw.aivCores, "rings",
          "sender + forwarder + receiver cores (" +
              std::to_string(t.senderCores + t.forwarderCores + t.receiverCores) +
              ") exceed the card's " + std::to_string(hw.aivCores) + " AIV cores");
  const RoleUbNeeds need = streamingUbNeeds(sc, P);
  auto fits = [&](std::int64_t bytes, const char* role) {
    require(bytes <= ub, "rings.chunk_bytes",
            std::string("UB overflow: a ") + role + " core needs " + std::to_string(bytes) +
                " B (staging + read buffers + routing tables) but UB (hardware.overrides.ub_bytes) "
                "holds " +
                std::to_string(ub) + " B; use smaller chunks or a larger UB");
  };
  fits(need.sender, "sender");
  fits(need.forwarder, "forwarder");
  fits(need.receiver, "receiver");
}

}  // namespace moe

namespace moe {

RingTiling proposeTiling(const Scenario& scIn, int P) {
  Scenario sc = scIn;
  const HardwareProfile& hw = sc.hardware;
  RingTiling& t = sc.rings;
  const int fifth = std::max(1, hw.aivCores / 5);
  t.senderCores = fifth;
  t.receiverCores = fifth;
  t.forwarderCores = std::max(1, std::min(fifth, sc.cluster.servers));
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
  // Rings per card, streaming dispatch and combine together (see dispatch_streaming.cpp and
  // combine_plan.h): keep them within 1/16 of HBM.
  const std::int64_t S = sc.cluster.servers, cps = sc.cluster.cardsPerServer;
  const std::int64_t lanes = std::min<std::int64_t>(t.forwarderCores, S);
  const std::int64_t rings = cps + (S - 1) + cps * (S - 1) + cps * lanes + S * t.receiverCores;
  t.queueChunks = 8;
  while (t.queueChunks > 2 && rings * t.queueChunks * t.chunkBytes > hw.hbmBytes / 16)
    t.queueChunks /= 2;
  validateDispatchTiling(sc, P);
  return t;
}

}  // namespace moe
