#include "core/run/design_registry.h"

#include <stdexcept>

#include "core/kernels/kernels.h"

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

std::vector<DesignEntry> buildRegistry() {
  std::vector<DesignEntry> r;
  r.push_back(
      {Design::Phased,
       "phased",
       "SyncAll-separated phases through full windows: RDMA to the peer server, then "
       "forward over HCCS",
       WorkloadKind::MoeLayer,
       layerStages("dispatch-phased", launchDispatchPhased, "combine-phased", launchCombinePhased),
       {"rings.chunk_bytes", "rings.sender_cores", "rings.forwarder_cores", "rings.receiver_cores"},
       phasedMemory,
       DispatchImpl::Phased});
  r.push_back({Design::Streaming,
               "streaming",
               "ring buffers between sender, forwarder and receiver cores: RDMA, forwarding and "
               "receiving overlap",
               WorkloadKind::MoeLayer,
               layerStages("dispatch-streaming", launchDispatchStreaming, "combine-streaming",
                           launchCombineStreaming),
               {"rings.chunk_bytes", "rings.queue_chunks", "rings.sender_cores",
                "rings.forwarder_cores", "rings.receiver_cores", "combine.rdma_batch_bytes",
                "combine.partial_dtype", "combine.ub_window_rows", "combine.sum_local_experts"},
               streamingMemory,
               DispatchImpl::Streaming});
  r.push_back({Design::Flat,
               "flat",
               "full mesh: every row straight to its destination rank over RDMA or HCCS, no "
               "forwarder",
               WorkloadKind::MoeLayer,
               layerStages("dispatch-flat", launchDispatchFlat, "combine-flat", launchCombineFlat),
               {"rings.chunk_bytes", "rings.sender_cores", "rings.receiver_cores"},
               flatMemory,
               DispatchImpl::Flat});
  r.push_back({Design::Pipelined,
               "pipelined",
               "the fused AlltoAll-Matmul-ReduceScatter kernel: tiles of the all-to-all, the "
               "matmul and the reduce-scatter in flight at once",
               WorkloadKind::AlltoallMatmulRs,
               {{StageId::A2aMatmulRs, "a2a-matmul-rs", nullptr, launchA2aMatmulPipelined}},
               {"workload.tile_m", "workload.tile_n", "workload.tile_k", "workload.stages"}});
  r.push_back({Design::Sequential,
               "sequential",
               "the fused operator's baseline: all-to-all, then matmul, then reduce-scatter",
               WorkloadKind::AlltoallMatmulRs,
               {{StageId::AllToAll, "all-to-all", nullptr, launchA2aAllToAll},
                {StageId::Matmul, "matmul", nullptr, launchA2aMatmul},
                {StageId::ReduceScatter, "reduce-scatter", nullptr, launchA2aReduceScatter}},
               {"workload.tile_m", "workload.tile_n", "workload.tile_k", "workload.stages"}});
  return r;
}

}  // namespace

const std::vector<DesignEntry>& designRegistry() {
  static const std::vector<DesignEntry> registry = buildRegistry();
  return registry;
}

const DesignEntry& designEntry(Design d) {
  for (const DesignEntry& e : designRegistry())
    if (e.design == d) return e;
  throw std::logic_error("design missing from the registry");
}

}  // namespace moe
