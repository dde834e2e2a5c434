// The flat full-mesh design of the MoE layer (DESIGN.md §3.5d): every row straight to its
// destination rank over RDMA or HCCS, with no forwarder (the shape of DeepEP's low-latency
// kernels and of A2's "fullmesh" operators). Its registry entry and its memory rule; its
// kernels are core/kernels/dispatch_flat.cpp and combine_flat.cpp.

#include <algorithm>
#include <cstdint>

#include "core/kernels/kernels.h"
#include "core/run/design_registry.h"
#include "core/runtime/record_layout.h"

namespace moe {

namespace {

// One worst-case dispatch window per source rank, one combine window per expert card.
DesignMemory flatMemory(const Scenario& sc, int placePerRank) {
  const std::int64_t ranks = sc.cluster.ranks();
  const std::int64_t tokens = sc.model.tokensPerRank;
  const std::int64_t topK = sc.model.topk;
  const RecordLayout rec = recordLayout(sc);
  DesignMemory m;
  m.label = "flat windows (dispatch and combine)";
  m.reservedBytes = ranks * tokens * rec.dispatchRecordBytes +
                    ranks * tokens * std::min<std::int64_t>(topK, placePerRank) * rec.rowBytes;
  m.dispatchWritten = tokens * topK * rec.dispatchRecordBytes;
  m.combineWritten = tokens * topK * rec.rowBytes;
  return m;
}

}  // namespace

DesignEntry entryOfFlat() {
  return {
      .description =
          "full mesh: every row straight to its destination rank over RDMA "
          "or HCCS, no forwarder",
      .stages = layerStages("dispatch-flat", launchDispatchFlat, "combine-flat", launchCombineFlat),
      .knobs = {"rings.chunk_bytes", "rings.sender_cores", "rings.receiver_cores"},
      .memory = flatMemory};
}

}  // namespace moe
