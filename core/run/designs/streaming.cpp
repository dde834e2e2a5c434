// The streaming design of the MoE layer (DESIGN.md §3.3, §3.5b): ring buffers between
// sender, forwarder and receiver cores, so RDMA, forwarding and receiving overlap. Its
// registry entry and its memory rule; its kernels are core/kernels/dispatch_streaming.cpp
// and combine_streaming.cpp (with their sender and forwarder files).

#include <algorithm>
#include <cstdint>

#include "core/kernels/kernels.h"
#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/protocol/ring_buffer.h"
#include "core/run/design_registry.h"

namespace moe {

namespace {

// Rings: a dispatch ring per local card and channel, IPC and partial rings for the combine,
// and RDMA batch staging on the forwarder cards. The rings do not depend on the placement.
DesignMemory streamingMemory(const Scenario& sc, int /*placePerRank*/) {
  const std::int64_t cardsPerServer = sc.cluster.cardsPerServer;
  const std::int64_t servers = sc.cluster.servers;
  const std::int64_t combineRing = sc.rings.combine.chunkBytes * sc.rings.combine.queueChunks;
  // Windows into one card: a ring per local card and per RDMA channel.
  const std::int64_t dispatchRings = cardsPerServer + streamingDispatchChannelRingsPerCard(sc);
  const std::int64_t dispatchRingBytes =
      streamingDispatchRingBytesPerCard(sc) + dispatchRings * 2 * kControlLineBytes;
  // The streaming combine as core/plan/combine_plan lays it out: IPC rings per (local card,
  // lane), partial rings per (server, channel), and on each forwarder card two staging halves
  // of one RDMA batch per (other server, channel) it sends partials to.
  int lanes = 1, channels = 1;
  combineLanesAndChannels(sc, lanes, channels);
  const std::int64_t partialBytes = partialRecordBytes(sc);
  const std::int64_t perPost =
      std::max<std::int64_t>(1, std::min(sc.combine.rdmaBatchBytes, combineRing) / partialBytes);
  const std::int64_t batchStaging = (servers - 1) * channels * 2 * perPost * partialBytes;
  const std::int64_t combineRings = cardsPerServer * lanes + servers * channels;
  // One fp32 buffer of every token.
  const std::int64_t fp32Tokens = std::int64_t{sc.model.tokensPerRank} * sc.model.hidden * 4;
  DesignMemory m;
  m.label = "rings (dispatch and combine)";
  m.reservedBytes =
      dispatchRingBytes + combineRings * (combineRing + 2 * kControlLineBytes) + batchStaging;
  // Rings cycle: every ring is touched whole.
  m.dispatchWritten = streamingDispatchRingBytesPerCard(sc);
  m.combineWritten = combineRings * (combineRing + 2 * kControlLineBytes) + batchStaging +
                     servers * fp32Tokens + fp32Tokens;
  return m;
}

}  // namespace

DesignEntry entryOfStreaming() {
  return {.description =
              "ring buffers between sender, forwarder and receiver cores: RDMA, "
              "forwarding and receiving overlap",
          .stages = layerStages("dispatch-streaming", launchDispatchStreaming, "combine-streaming",
                                launchCombineStreaming),
          .knobs = {"rings.chunk_bytes", "rings.queue_chunks", "rings.sender_cores",
                    "rings.forwarder_cores", "rings.receiver_cores", "combine.rdma_batch_bytes",
                    "combine.partial_dtype", "combine.ub_window_rows", "combine.sum_local_experts"},
          .memory = streamingMemory,
          .dispatchChannels = dispatchRdmaChannels};
}

}  // namespace moe
