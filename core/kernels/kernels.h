#pragma once
// Launchers for the emulated kernels of one MoE layer. Each launches one coroutine program
// per participating core (counting them on the latch) and returns; the host driver awaits
// the latch, like a kernel launch followed by a stream sync.

#include "core/runtime/layer_context.h"

namespace moe {

// MoeUpdateExpert (seed 002): AIV cores split BS*K elements into contiguous ranges.
void launchUpdateExpert(LayerContext& ctx, Latch& done);
// get_dispatch_layout (seed 003): expert-counting blocks, then rank-counting blocks.
void launchLayout(LayerContext& ctx, Latch& done);
// Dispatch step 1, shared by both designs: every rank tells every peer how many tokens
// and rows it will send, then SyncAll.
void launchDispatchNotify(LayerContext& ctx, Latch& done);
// Dispatch step 2: the data movement, phased (SyncAll-separated full buffers) or streaming
// (ring buffers with sender / forwarder / receiver cores).
void launchDispatchPhased(LayerContext& ctx, Latch& done);
void launchDispatchStreaming(LayerContext& ctx, Latch& done);
// Flat full-mesh: every row straight to its destination rank (RDMA between servers), no
// forwarder; per-window arrival counters instead of rings or barriers.
void launchDispatchFlat(LayerContext& ctx, Latch& done);
// The experts (DESIGN.md §3.4): grouped GEMM timing on the AIC cores, y = a_e x + b_e data.
void launchExperts(LayerContext& ctx, Latch& done);
// Combine (DESIGN.md §3.5): the expert outputs back to their tokens' ranks, weighted and summed.
void launchCombineStreaming(LayerContext& ctx, Latch& done);
void launchCombinePhased(LayerContext& ctx, Latch& done);
void launchCombineFlat(LayerContext& ctx, Latch& done);

}  // namespace moe
