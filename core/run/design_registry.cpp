#include "core/run/design_registry.h"

#include <algorithm>
#include <stdexcept>

#include "core/kernels/kernels.h"
#include "core/plan/dispatch_tiling.h"

namespace moe {

namespace {

// The MoE layer's stages: every design shares all but dispatch and combine.
std::vector<DesignStage> layerStages(std::string_view dispatchName, LayerLaunch dispatch,
                                     std::string_view combineName, LayerLaunch combine) {
  return {{StageId::UpdateExpert, "update-expert", launchUpdateExpert},
          {StageId::Layout, "layout", launchLayout},
          {StageId::DispatchNotify, "dispatch-notify", launchDispatchNotify},
          {StageId::Dispatch, dispatchName, dispatch},
          {StageId::Experts, "experts", launchExperts},
          {StageId::Combine, combineName, combine}};
}

// The entry with its name and workload taken from the design table.
DesignEntry withIdentity(DesignEntry e) {
  e.name = designName(e.design);
  e.workload = workloadOf(e.design);
  return e;
}

// In the design table's (report) order; a test checks that every row has its entry.
std::vector<DesignEntry> buildRegistry() {
  std::vector<DesignEntry> r;
  r.push_back({.design = Design::Phased,
               .description = "SyncAll-separated phases through full windows: RDMA to the peer "
                              "server, then forward over HCCS",
               .stages = layerStages("dispatch-phased", launchDispatchPhased, "combine-phased",
                                     launchCombinePhased),
               .knobs = {"rings.chunk_bytes", "rings.sender_cores", "rings.forwarder_cores",
                         "rings.receiver_cores"},
               .memory = phasedMemory});
  r.push_back(
      {.design = Design::Streaming,
       .description = "ring buffers between sender, forwarder and receiver cores: RDMA, "
                      "forwarding and receiving overlap",
       .stages = layerStages("dispatch-streaming", launchDispatchStreaming, "combine-streaming",
                             launchCombineStreaming),
       .knobs = {"rings.chunk_bytes", "rings.queue_chunks", "rings.sender_cores",
                 "rings.forwarder_cores", "rings.receiver_cores", "combine.rdma_batch_bytes",
                 "combine.partial_dtype", "combine.ub_window_rows", "combine.sum_local_experts"},
       .memory = streamingMemory,
       .dispatchChannels = dispatchRdmaChannels});
  r.push_back({.design = Design::Flat,
               .description = "full mesh: every row straight to its destination rank over RDMA "
                              "or HCCS, no forwarder",
               .stages = layerStages("dispatch-flat", launchDispatchFlat, "combine-flat",
                                     launchCombineFlat),
               .knobs = {"rings.chunk_bytes", "rings.sender_cores", "rings.receiver_cores"},
               .memory = flatMemory});
  r.push_back(
      {.design = Design::Pipelined,
       .description = "the fused AlltoAll-Matmul-ReduceScatter kernel: tiles of the "
                      "all-to-all, the matmul and the reduce-scatter in flight at once",
       .stages = {{StageId::A2aMatmulRs, "a2a-matmul-rs", nullptr, launchA2aMatmulPipelined}},
       .knobs = {"workload.tile_m", "workload.tile_n", "workload.tile_k", "workload.stages"}});
  r.push_back(
      {.design = Design::Sequential,
       .description = "the fused operator's baseline: all-to-all, then matmul, then "
                      "reduce-scatter",
       .stages = {{StageId::AllToAll, "all-to-all", nullptr, launchA2aAllToAll},
                  {StageId::Matmul, "matmul", nullptr, launchA2aMatmul},
                  {StageId::ReduceScatter, "reduce-scatter", nullptr, launchA2aReduceScatter}},
       .knobs = {"workload.tile_m", "workload.tile_n", "workload.tile_k", "workload.stages"}});
  for (DesignEntry& e : r) e = withIdentity(std::move(e));
  return r;
}

}  // namespace

const std::vector<DesignEntry>& designRegistry() {
  static const std::vector<DesignEntry> registry = buildRegistry();
  return registry;
}

bool DesignEntry::reads(std::string_view knob) const {
  return std::find(knobs.begin(), knobs.end(), knob) != knobs.end();
}

const DesignEntry& designEntry(Design d) {
  for (const DesignEntry& e : designRegistry())
    if (e.design == d) return e;
  throw std::logic_error("design missing from the registry");
}

}  // namespace moe
