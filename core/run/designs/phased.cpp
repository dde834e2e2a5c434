// The phased design of the MoE layer (DESIGN.md §3.3, §3.5a): SyncAll-separated phases
// through worst-case windows, RDMA to the peer server and then a forward over HCCS. Its
// registry entry and its memory rule; its kernels are core/kernels/dispatch_phased.cpp and
// combine_phased.cpp.

#include <algorithm>
#include <cstdint>

#include "core/kernels/kernels.h"
#include "core/run/design_registry.h"
#include "core/runtime/record_layout.h"

namespace moe {

namespace {

// Windows: one full window per incoming link, the forwarders' slots, fp32 combine buffers.
DesignMemory phasedMemory(const Scenario& sc, int placePerRank) {
  const std::int64_t cardsPerServer = sc.cluster.cardsPerServer;
  const std::int64_t servers = sc.cluster.servers;
  const std::int64_t tokens = sc.model.tokensPerRank;
  const std::int64_t topK = sc.model.topk;
  const RecordLayout rec = recordLayout(sc);
  // Windows into one card: direct from each local card, one RDMA per other server, and one
  // forward per (local card, other server).
  const std::int64_t dispatchLinks = cardsPerServer + (servers - 1) * (cardsPerServer + 1);
  const std::int64_t slots = servers * tokens * std::min<std::int64_t>(topK, placePerRank);
  const std::int64_t fp32Tokens = tokens * sc.model.hidden * 4;  // fp32 of every token
  DesignMemory m;
  m.label = "phased windows (dispatch and combine)";
  m.reservedBytes = dispatchLinks * tokens * rec.recordBytes +
                    cardsPerServer * slots * rec.recordBytes + servers * 2 * fp32Tokens;
  // Windows: each received row written once.
  m.dispatchWritten = tokens * topK * rec.dispatchRecordBytes;
  m.combineWritten = tokens * topK * rec.recordBytes + 2 * servers * fp32Tokens;
  return m;
}

}  // namespace

DesignEntry entryOfPhased() {
  return {.description =
              "SyncAll-separated phases through full windows: RDMA to the peer "
              "server, then forward over HCCS",
          .stages = layerStages("dispatch-phased", launchDispatchPhased, "combine-phased",
                                launchCombinePhased),
          .knobs = {"rings.chunk_bytes", "rings.sender_cores", "rings.forwarder_cores",
                    "rings.receiver_cores"},
          .memory = phasedMemory};
}

}  // namespace moe
