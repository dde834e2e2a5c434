#include "core/ops/dispatch_tiling.h"

#include <algorithm>

#include "core/ops/dispatch_common.h"
#include "core/util/error.h"

namespace moe {

RoleUbNeeds streamingUbNeeds(const Scenario& sc, int P) {
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t BS = sc.model.tokensPerRank, K = sc.model.topk, R = sc.cluster.ranks();
  const std::int64_t chunk = sc.rings.chunkBytes;
  const std::int64_t routing = alignUp(BS * K * 4, 32) * 2 + alignUp(BS * K, 32);
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
          "a chunk of " + std::to_string(t.chunkBytes) + " B is smaller than one combine partial record (" +
              std::to_string(partialRecordBytes(sc)) + " B: header + fp32 row)");
  require(t.queueChunks >= 2, "rings.queue_chunks",
          "a ring needs at least 2 chunks so the producer can fill one while the consumer drains "
          "the other (got " + std::to_string(t.queueChunks) + ")");
  require(t.senderCores + t.forwarderCores + t.receiverCores <= hw.aivCores, "rings",
          "sender + forwarder + receiver cores (" +
              std::to_string(t.senderCores + t.forwarderCores + t.receiverCores) +
              ") exceed the card's " + std::to_string(hw.aivCores) + " AIV cores");
  const RoleUbNeeds need = streamingUbNeeds(sc, P);
  auto fits = [&](std::int64_t bytes, const char* role) {
    require(bytes <= ub, "rings.chunk_bytes",
            std::string("UB overflow: a ") + role + " core needs " + std::to_string(bytes) +
                " B (staging + read buffers + routing tables) but UB holds " + std::to_string(ub) + " B");
  };
  fits(need.sender, "sender");
  fits(need.forwarder, "forwarder");
  fits(need.receiver, "receiver");
}

}  // namespace moe
