// The sequential design of the fused AlltoAll-Matmul-ReduceScatter operator (DESIGN.md
// §3.6), the baseline the pipelined kernel is measured against: its registry entry. Its
// kernels are core/kernels/a2a_matmul_rs_kernel.cpp.

#include "core/kernels/a2a_matmul_rs_kernel.h"
#include "core/run/design_registry.h"

namespace moe {

DesignEntry entryOfSequential() {
  return {.description =
              "the fused operator's baseline: all-to-all, then matmul, then "
              "reduce-scatter",
          .stages = {{StageId::AllToAll, "all-to-all", nullptr, launchA2aAllToAll},
                     {StageId::Matmul, "matmul", nullptr, launchA2aMatmul},
                     {StageId::ReduceScatter, "reduce-scatter", nullptr, launchA2aReduceScatter}},
          .knobs = {"workload.tile_m", "workload.tile_n", "workload.tile_k", "workload.stages"}};
}

}  // namespace moe
