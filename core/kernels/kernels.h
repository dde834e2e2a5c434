#pragma once
// Launchers for the emulated kernels of one MoE layer. Each launches one coroutine program
// per participating core (counting them on the latch) and returns; the host driver awaits
// the latch, like a kernel launch followed by a stream sync.

#include "core/runtime/layer_context.h"
#include "core/scenario/design_table.h"

namespace moe {

// MoeUpdateExpert (seed 002): AIV cores split BS*K elements into contiguous ranges.
void launchUpdateExpert(LayerContext& ctx, Latch& done);
// get_dispatch_layout (seed 003): expert-counting blocks, then rank-counting blocks.
void launchLayout(LayerContext& ctx, Latch& done);
// Dispatch step 1, shared by every design: every rank tells every peer how many tokens
// and rows it will send, then SyncAll.
void launchDispatchNotify(LayerContext& ctx, Latch& done);
// The experts (DESIGN.md §3.4): grouped GEMM timing on the AIC cores, y = a_e x + b_e data.
void launchExperts(LayerContext& ctx, Latch& done);

// What each MoE-layer design brings, declared from its row in the design table
// (MOE_LAYER_DESIGNS), so a new design's row declares its kernels: dispatch step 2, the data
// movement, launchDispatch<Design> in core/kernels/dispatch_<name>.cpp (launchDispatchFlat
// in dispatch_flat.cpp); and the combine (DESIGN.md §3.5), the expert outputs back to their
// tokens' ranks, weighted and summed, launchCombine<Design> in core/kernels/combine_<name>.cpp.
// Each file's head comment says how its design moves the rows.
#define MOE_DECLARE_DESIGN_KERNELS(id, ...)                \
  void launchDispatch##id(LayerContext& ctx, Latch& done); \
  void launchCombine##id(LayerContext& ctx, Latch& done);
MOE_LAYER_DESIGNS(MOE_DECLARE_DESIGN_KERNELS)
#undef MOE_DECLARE_DESIGN_KERNELS

}  // namespace moe
