#include "core/kernels/dispatch_common.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/reference/dispatch_quant.h"

namespace moe {

RecvPlan planFromCounts(const LayerContext& ctx, const std::int32_t* counts) {
  const int R = ctx.ranks, P = ctx.placePerRank, C = ctx.channels, cols = ctx.countCols();
  RecvPlan p;
  p.offsets.assign(static_cast<std::size_t>(P) * R, 0);
  p.lengths.assign(static_cast<std::size_t>(P) * R, 0);
  p.channelStart.assign(static_cast<std::size_t>(P) * R * C, 0);
  p.expertTokenNums.assign(P, 0);
  p.tokensFrom.assign(R, 0);
  p.tokensToServer.assign(R, 0);
  for (int s = 0; s < R; ++s)
    for (int ch = 0; ch < C; ++ch) {
      p.tokensFrom[s] += counts[s * cols + ctx.colToRank(ch)];
      p.tokensToServer[s] += counts[s * cols + ctx.colToServer(ch)];
    }
  std::int32_t row = 0;
  for (int le = 0; le < P; ++le)
    for (int s = 0; s < R; ++s) {
      p.offsets[le * R + s] = row;
      for (int ch = 0; ch < C; ++ch) {
        p.channelStart[(le * R + s) * C + ch] = row;
        row += counts[s * cols + ctx.colRows(le, ch)];
      }
      p.lengths[le * R + s] = row - p.offsets[le * R + s];
      p.expertTokenNums[le] += p.lengths[le * R + s];
    }
  p.rows = row;
  return p;
}

void publishRecvTables(LayerContext& ctx, AiCore& core, int d, const RecvPlan& plan) {
  DispatchTensors& dispatched = ctx.cards[d].dispatch;
  const std::int64_t tableBytes = ctx.placePerRank * ctx.ranks * 4LL;
  const std::int64_t lenAt = alignUp(tableBytes, 32), numsAt = 2 * lenAt;  // aligned UB blocks
  Buffer* tables =
      ctx.m.allocUb(core, numsAt + alignUp(ctx.placePerRank * 4LL, 32), "tables", false);
  std::copy(plan.offsets.begin(), plan.offsets.end(), tables->as<std::int32_t>());
  std::copy(plan.lengths.begin(), plan.lengths.end(), tables->as<std::int32_t>() + lenAt / 4);
  std::copy(plan.expertTokenNums.begin(), plan.expertTokenNums.end(),
            tables->as<std::int32_t>() + numsAt / 4);
  core.copy(whole(dispatched.offsets), Region{tables, 0, tableBytes});
  core.copy(whole(dispatched.lengths), Region{tables, lenAt, tableBytes});
  core.copy(whole(dispatched.expertTokenNums), Region{tables, numsAt, ctx.placePerRank * 4LL});
}

RoutingInUb allocRouting(LayerContext& ctx, AiCore& core) {
  const std::int64_t n =
      static_cast<std::int64_t>(routingWindowTokens(ctx.tokensPerRank)) * ctx.topK;
  RoutingInUb r;
  r.idsBuf = ctx.m.allocUb(core, n * 4, "ids", false);
  r.keepBuf = ctx.m.allocUb(core, n, "mask", false);
  r.weightsBuf = ctx.m.allocUb(core, n * 4, "weights", false);
  return r;
}

Task loadRouting(LayerContext& ctx, AiCore& core, int s, RoutingInUb& r, int first) {
  const InputTensors& input = ctx.cards[s].input;
  const ExpertUpdateTensors& routed = ctx.cards[s].update;
  const int W = routingWindowTokens(ctx.tokensPerRank);
  const int count = std::min(W, ctx.tokensPerRank - first);
  const std::int64_t at = static_cast<std::int64_t>(first) * ctx.topK;
  const std::int64_t n = static_cast<std::int64_t>(count) * ctx.topK;
  core.copy(Region{r.idsBuf, 0, n * 4}, Region{routed.balancedIds, at * 4, n * 4});
  core.copy(Region{r.keepBuf, 0, n}, Region{routed.mask, at, n});
  // MTE2 in order: the last load landing means all have.
  co_await core.copy(Region{r.weightsBuf, 0, n * 4}, Region{input.topkWeights, at * 4, n * 4});
  r.first = first;
  r.count = count;
}

int placeRow(LayerContext& ctx, AiCore& core, int d, const RecordMeta& meta, Region row,
             const RecvPlan& plan, std::vector<std::int32_t>& next, Buffer* side, int sideSlot) {
  DispatchTensors& dispatched = ctx.cards[d].dispatch;
  int placed = 0;
  for (int k = 0; k < meta.k; ++k) {
    const std::int32_t id = meta.ids[k];
    if (id < 0 || ctx.rankOfInstance(id) != d) continue;
    const int le = id % ctx.placePerRank;
    const std::size_t at = static_cast<std::size_t>(le * ctx.ranks + meta.srcRank) * ctx.channels +
                           ctx.channelOf(meta.token);
    const std::int64_t r = plan.channelStart[at] + next[at]++;
    core.copy(Region{dispatched.expandX, r * ctx.rowBytes, ctx.rowBytes}, row);
    // Scale and (source rank, token, k) from aligned UB slots: DataCopyPad writes 4 and 12 B.
    const std::int64_t slot = (static_cast<std::int64_t>(sideSlot) * meta.k * 2 + k * 2) * 32;
    side->as<float>()[slot / 4] = meta.weights[k];
    auto* idx = side->as<std::int32_t>() + (slot + 32) / 4;
    idx[0] = meta.srcRank;
    idx[1] = meta.token;
    idx[2] = k;
    core.copy(Region{dispatched.expandScales, r * 4, 4}, Region{side, slot, 4});
    core.copy(Region{dispatched.expandIdx, r * 12, 12}, Region{side, slot + 32, 12});
    ++placed;
  }
  return placed;
}

Task packQuantizedRecords(LayerContext& ctx, AiCore& core, Buffer* staging, std::int64_t n) {
  if (n == 0) co_return;
  co_await core.vector(n * ctx.hidden, 2);  // amax (per block or per token)
  co_await core.vector(n * ctx.hidden, 2);  // scale and convert to the one-byte codes
  if (staging->bytes.empty()) co_return;
  std::vector<std::uint8_t> wire(static_cast<std::size_t>(ctx.dispatchRowBytes));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto* row =
        reinterpret_cast<const bf16*>(staging->data() + i * ctx.recordBytes + ctx.metaBytes);
    quantizeRow(ctx.dispatchDtype, row, ctx.hidden, wire.data());
    std::memcpy(staging->data() + i * ctx.dispatchRecordBytes + ctx.metaBytes, wire.data(),
                wire.size());
  }
}

Task unpackQuantizedRecords(LayerContext& ctx, AiCore& core, Buffer* rx, std::int64_t n,
                            Buffer* rows) {
  if (n == 0) co_return;
  co_await core.vector(n * ctx.hidden, 2);  // convert and scale to bf16
  if (rx->bytes.empty() || rows->bytes.empty()) co_return;
  for (std::int64_t i = 0; i < n; ++i)
    dequantizeRow(ctx.dispatchDtype, rx->data() + i * ctx.dispatchRecordBytes + ctx.metaBytes,
                  ctx.hidden, rows->as<bf16>() + i * ctx.hidden);
}

}  // namespace moe
