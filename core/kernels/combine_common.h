#pragma once
// The last step of every combine design, per token: add the shared expert, round the
// fp32 sum to bf16 once, and with AddRmsNorm add the residual and normalize.

#include "core/runtime/layer_context.h"

namespace moe {

// Combine senders read the index tables of expert_out in blocks of this many rows: per row
// (source rank, token, k), 12 B, and its weight, 4 B.
constexpr std::int64_t kIdxRows = 256;

// Copies rows [first, first + n) of a card's index tables (dispatch's expandIdx and
// expandScales) into UB (`idx`, `scales`); the
// returned op lands after both (same pipe).
OpRef readIndexBlock(AiCore& core, const DispatchTensors& dispatch, std::int64_t first,
                     std::int64_t n, Buffer* idx, Buffer* scales);

class CombineFinisher {
 public:
  // Allocates its UB scratch on `core` (rows of H elements). Reads the rank's tokens
  // (InputTensors::x, for the shared expert and the residual), writes its CombineTensors.
  CombineFinisher(LayerContext& ctx, AiCore& core, int rank);
  // The fp32 running sum of one token, in this core's UB.
  Buffer* sum() { return sum_; }
  // Writes token t's outputs (XOut, or x_out/y/rstd) from sum().
  Task finish(int t);

 private:
  LayerContext& ctx_;
  AiCore& core_;
  const InputTensors& in_;
  CombineTensors& out_;
  Buffer *sum_, *xRow_, *outRow_, *yRow_, *rstd_;
};

}  // namespace moe
