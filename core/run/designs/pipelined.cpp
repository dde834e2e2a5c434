// The pipelined design of the fused AlltoAll-Matmul-ReduceScatter operator (DESIGN.md
// §3.6): its registry entry. Its kernel is core/kernels/a2a_matmul_rs_kernel.cpp.

#include "core/kernels/a2a_matmul_rs_kernel.h"
#include "core/run/design_registry.h"

namespace moe {

DesignEntry entryOfPipelined() {
  return {.description =
              "the fused AlltoAll-Matmul-ReduceScatter kernel: tiles of the "
              "all-to-all, the matmul and the reduce-scatter in flight at once",
          .stages = {{StageId::A2aMatmulRs, "a2a-matmul-rs", nullptr, launchA2aMatmulPipelined}},
          .knobs = {"workload.tile_m", "workload.tile_n", "workload.tile_k", "workload.stages"}};
}

}  // namespace moe
