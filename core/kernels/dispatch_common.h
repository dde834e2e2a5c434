#pragma once
// Pieces both dispatch designs share: the receive plan a destination derives from the
// notified counts, the record header of a token, and the receiver's placement of a row.

#include <cstdint>
#include <vector>

#include "core/runtime/layer_context.h"

namespace moe {

// Expert-major, rank-minor placement at one destination (DESIGN.md §3.3).
struct RecvPlan {
  std::vector<std::int32_t> offsets;          // [P*R] first row of (local expert, source)
  std::vector<std::int32_t> lengths;          // [P*R]
  std::vector<std::int32_t> expertTokenNums;  // [P]
  std::vector<std::int32_t> tokensFrom;       // [R] tokens each source sends here
  std::vector<std::int32_t> tokensToServer;   // [R] tokens each source sends to this server
  // [(le * R + s) * C + ch]: first row of (local expert, source) fed by token channel ch,
  // so rows of one source arriving over several channels still land in token order.
  std::vector<std::int32_t> channelStart;
  std::int64_t rows = 0;
};

// counts: the [R][C * (2 + P)] matrix written by notify (LayerContext::countCols).
RecvPlan planFromCounts(const LayerContext& ctx, const std::int32_t* counts);

// A source rank's routing (after UpdateExpert) staged in one core's UB, a window of at
// most kRoutingWindowTokens tokens at a time: tokens [first, first + count).
struct RoutingInUb {
  Buffer* idsBuf = nullptr;
  Buffer* keepBuf = nullptr;
  Buffer* weightsBuf = nullptr;
  int first = 0, count = 0;
  bool holds(int t) const { return t >= first && t < first + count; }
  const std::int32_t* ids() const { return idsBuf->as<std::int32_t>(); }
  const std::uint8_t* keep() const { return keepBuf->data(); }
  const float* weights() const { return weightsBuf->as<float>(); }
};
// Allocates the window's UB buffers; nothing is loaded yet.
RoutingInUb allocRouting(LayerContext& ctx, AiCore& core);
// Loads the window of tokens starting at `first` (a multiple of the window size).
Task loadRouting(LayerContext& ctx, AiCore& core, int s, RoutingInUb& r, int first);

// Header of token t of source rank s (t inside the staged routing window), keeping only
// the slots routed (and kept) to destinations that satisfy `wanted(rank)`; the others are -1.
template <typename Wanted>
RecordMeta tokenMeta(const LayerContext& ctx, int s, int t, const RoutingInUb& routing,
                     Wanted wanted) {
  const std::int32_t* ids = routing.ids();
  const std::uint8_t* mask = routing.keep();
  const float* weights = routing.weights();
  const int at = (t - routing.first) * ctx.topK;
  RecordMeta meta;
  meta.srcRank = s;
  meta.token = t;
  meta.k = ctx.topK;
  for (int k = 0; k < ctx.topK; ++k) {
    const std::int32_t id = ids[at + k];
    const bool keep = mask[at + k] && wanted(ctx.rankOfInstance(id));
    meta.ids[k] = keep ? id : -1;
    meta.weights[k] = weights[at + k];
    if (keep) meta.cardMask |= 1ull << ctx.localOf(ctx.rankOfInstance(id));
  }
  return meta;
}

// Receiver side: writes one received row (already in UB at `row`) to every slot of
// expandX / expandScales / expandIdx it belongs to on rank d. `next` holds the running
// row counter per (local expert, source, channel), plan.channelStart.size() of them: a
// channel's rows of one source arrive in token order on one ring. `side` is a UB scratch of
// 32 B per slot.
// Returns the number of rows written.
int placeRow(LayerContext& ctx, AiCore& core, int d, const RecordMeta& meta, Region row,
             const RecvPlan& plan, std::vector<std::int32_t>& next, Buffer* side, int sideSlot);

// One receiver per card writes the Offset/Length tables and expertTokenNums to GM.
void publishRecvTables(LayerContext& ctx, AiCore& core, int d, const RecvPlan& plan);

// Quantized dispatch (model.dispatch_dtype fp8 or int8). Senders gather bf16 rows into
// records spaced ctx.recordBytes, as for bf16; packQuantizedRecords then turns the first n of
// them into quantized records spaced ctx.dispatchRecordBytes (header, one-byte codes, fp32
// scales), in place: each record moves down to a smaller or equal offset.
Task packQuantizedRecords(LayerContext& ctx, AiCore& core, Buffer* staging, std::int64_t n);
// Receivers: the n quantized records in `rx` (spaced ctx.dispatchRecordBytes) dequantized
// into bf16 rows (spaced ctx.rowBytes) in `rows`.
Task unpackQuantizedRecords(LayerContext& ctx, AiCore& core, Buffer* rx, std::int64_t n,
                            Buffer* rows);

}  // namespace moe
