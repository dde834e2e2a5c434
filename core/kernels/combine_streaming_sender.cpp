// The streaming combine's sender role (combine_streaming.cpp has the whole protocol).

#include <algorithm>
#include <memory>

#include "core/kernels/combine_common.h"
#include "core/kernels/combine_streaming_roles.h"
#include "core/kernels/kernels.h"
#include "core/kernels/ring_polling.h"
#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/reference/combine_reference.h"
#include "core/reference/dispatch_reference.h"

namespace moe::streaming_combine {

namespace {

// A block of at most kIdxRows expert_out rows of one owner, all of one local expert.
struct IndexBlock {
  int owner;
  std::int64_t first, count;
};

// The blocks of expert_out card d holds for target tg's owners, local expert by local expert
// (the Offset/Length tables give each (expert, owner) one contiguous range).
std::vector<IndexBlock> indexBlocks(const LayerContext& ctx, int d, const CombinePlan& plan,
                                    SenderTarget tg) {
  const auto* off = ctx.cards[d].dispatch.offsets->as<std::int32_t>();
  const auto* len = ctx.cards[d].dispatch.lengths->as<std::int32_t>();
  std::vector<IndexBlock> blocks;
  for (int le = 0; le < ctx.placePerRank; ++le)
    for (int S = 0; S < ctx.servers; ++S) {
      const int r =
          S * ctx.cardsPerServer + ctx.localOf(tg.f);  // an owner this target forwards for
      if (!plan.laneServes(S, tg.lane)) continue;
      const std::int64_t begin = off[le * ctx.ranks + r], rows = len[le * ctx.ranks + r];
      for (std::int64_t b0 = 0; b0 < rows; b0 += kIdxRows)
        blocks.push_back({r, begin + b0, std::min(kIdxRows, rows - b0)});
    }
  return blocks;
}

// One expert row a summing sender adds into its owner token's row.
struct SummedRow {
  int owner;
  std::int32_t token;
  std::int64_t row;  // in expert_out
  float weight;
};

// A summing sender's rows for one target: lane L's rows of every owner it serves, read from
// the index tables block by block, in the order they are summed and sent. Token-major, the
// owners' servers in turn from the next one on: owner-major order had every forwarder of
// the cluster finish server 0's partials first, so all their RDMA posts converged on server
// 0's NICs while the others idled. Stable: a token's rows stay in local-expert order, the
// order of its fp32 sum.
Task readSummedRows(LayerContext& ctx, int d, AiCore& core, const CombinePlan& plan,
                    SenderTarget tg, Buffer* idx, Buffer* scales, std::vector<SummedRow>& rows) {
  for (const IndexBlock& b : indexBlocks(ctx, d, plan, tg)) {
    co_await readIndexBlock(core, ctx.cards[d].dispatch, b.first, b.count, idx, scales);
    for (std::int64_t i = 0; i < b.count; ++i) {
      const std::int32_t token = idx->as<std::int32_t>()[i * 3 + 1];
      if (plan.lane(ctx, b.owner, token) != tg.lane) continue;
      rows.push_back({b.owner, token, b.first + i, scales->as<float>()[i]});
    }
  }
  auto turn = [&](int owner) {
    return (ctx.serverOf(owner) - ctx.serverOf(d) + ctx.servers) % ctx.servers;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const SummedRow& a, const SummedRow& b) {
    if (a.token != b.token) return a.token < b.token;
    return turn(a.owner) < turn(b.owner);
  });
}

// The sender's staging in UB and the records gathered into it for the current ring.
// Ping-pong (seeds 000 and 004): MTE2 gathers the next chunk into one half while MTE3
// writes the previous one to the ring. With too little UB left for two whole chunks (the
// tiling reserves two per sender, but a tiny routing table or the summing buffers leave
// less), two halves of fewer records; with room for less than two records, one.
struct SenderStaging {
  SenderStaging(LayerContext& ctx, AiCore& core, Buffer* expertOut)
      : ctx(ctx), core(core), expertOut(expertOut), rb(ctx.recordBytes) {
    perBatch = std::max<std::int64_t>(1, ctx.sc.rings.combine.chunkBytes / rb);
    const std::int64_t ubLeft = ctx.m.hw().ubBytes - core.ubUsed();
    if (2 * perBatch * rb > ubLeft && ubLeft >= 2 * rb) perBatch = ubLeft / (2 * rb);
    const std::int64_t stagingBytes = perBatch * rb;
    pingPong = 2 * stagingBytes <= ubLeft;
    halves[0] = ctx.m.allocUb(core, stagingBytes, "staging0", true);
    if (pingPong) halves[1] = ctx.m.allocUb(core, stagingBytes, "staging1", true);
  }
  LayerContext& ctx;
  AiCore& core;
  Buffer* expertOut;
  std::int64_t rb;
  std::int64_t perBatch = 1;
  bool pingPong = false;
  Buffer* halves[2] = {nullptr, nullptr};
  int half = 0;
  // The ring whose last chunk is being written (MTE3) and not yet published: its tail is
  // published once that write lands, which the next chunk's gather overlaps.
  RingBuffer* unpublished = nullptr;
  std::vector<RecordMeta> metas;
  std::vector<std::int64_t> rowsRead;  // expert_out rows behind metas

  bool full() const { return static_cast<std::int64_t>(metas.size()) == perBatch; }
  // The row of the next record in the current half.
  Region nextRow() const {
    return Region{halves[half], static_cast<std::int64_t>(metas.size()) * rb + ctx.metaBytes,
                  ctx.rowBytes};
  }
  Task publishWritten() {
    if (unpublished == nullptr) co_return;
    co_await core.fence(Pipe::Mte3);  // data lands before the tail says so
    unpublished->publishTail(core);
    unpublished = nullptr;
  }
  // Writes the gathered records into `ring` and switches halves.
  Task flush(RingBuffer& ring) {
    if (metas.empty()) co_return;
    const std::int64_t bytes = static_cast<std::int64_t>(metas.size()) * rb;
    co_await core.fence(Pipe::Mte2);   // the gathered rows are in UB
    for (std::int64_t row : rowsRead)  // each expert row is sent exactly once
      ctx.consumed(Region{expertOut, row * ctx.rowBytes, ctx.rowBytes});
    rowsRead.clear();
    co_await publishWritten();  // the previous chunk (this half is free again too)
    co_await ring.waitSpace(core, bytes);
    ring.writeFromUb(core, Region{halves[half], 0, bytes}, metas, rb);
    unpublished = &ring;
    if (!pingPong) co_await publishWritten();  // the only half is reused next
    half = pingPong ? half ^ 1 : 0;
    metas.clear();
  }
};

// The index tables' staging in UB, and with sum_local_experts an fp32 running sum and two
// expert rows (row j + 1 is read while row j is added).
struct SenderBuffers {
  Buffer* idx;
  Buffer* scales;
  Buffer* sum = nullptr;
  Buffer* yRow[2] = {nullptr, nullptr};
};

// sum_local_experts: each owner token's rows on this card are summed in fp32 (weighted) and
// leave as one record, rounded to bf16 once.
Task sendSummed(LayerContext& ctx, int d, AiCore& core, const CombinePlan& plan, SenderTarget tg,
                RingBuffer& ring, SenderStaging& st, const SenderBuffers& ub) {
  const ExpertTensors& experts = ctx.cards[d].experts;
  auto expertRow = [&](std::int64_t row) {
    return Region{experts.expertOut, row * ctx.rowBytes, ctx.rowBytes};
  };
  std::vector<SummedRow> rows;
  co_await readSummedRows(ctx, d, core, plan, tg, ub.idx, ub.scales, rows);
  OpRef reading;
  if (!rows.empty()) reading = core.copy(whole(ub.yRow[0]), expertRow(rows[0].row));
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const SummedRow& e = rows[j];
    const bool first = j == 0 || rows[j - 1].owner != e.owner || rows[j - 1].token != e.token;
    const bool last =
        j + 1 == rows.size() || rows[j + 1].owner != e.owner || rows[j + 1].token != e.token;
    if (first && st.full()) co_await st.flush(ring);
    co_await reading;
    if (j + 1 < rows.size())
      reading = core.copy(whole(ub.yRow[(j + 1) % 2]), expertRow(rows[j + 1].row));
    st.rowsRead.push_back(e.row);
    co_await core.vector(ctx.hidden, 4);  // sum += w * y, in fp32
    if (!ub.sum->bytes.empty()) {
      const auto* y = ub.yRow[j % 2]->as<bf16>();
      float* s = ub.sum->as<float>();
      for (int h = 0; h < ctx.hidden; ++h)
        s[h] = (first ? 0.0f : s[h]) + e.weight * bf16ToFloat(y[h]);
    }
    if (!last) continue;
    const Region slot = st.nextRow();
    co_await core.vector(ctx.hidden, 4);  // rounded to bf16 once, into the staging slot
    if (!st.halves[st.half]->bytes.empty()) {
      const float* s = ub.sum->as<float>();
      auto* o = reinterpret_cast<bf16*>(slot.ptr());
      for (int h = 0; h < ctx.hidden; ++h) o[h] = floatToBf16(s[h]);
    }
    RecordMeta meta;
    meta.srcRank = e.owner;
    meta.token = e.token;
    meta.k = 1;
    meta.weights[0] = 1.0f;  // already weighted
    st.metas.push_back(meta);
  }
  co_await st.flush(ring);
}

// Each of the target's expert rows leaves as its own record, with its weight.
Task sendRows(LayerContext& ctx, int d, AiCore& core, const CombinePlan& plan, SenderTarget tg,
              RingBuffer& ring, SenderStaging& st, const SenderBuffers& ub) {
  const ExpertTensors& experts = ctx.cards[d].experts;
  const DispatchTensors& dispatched = ctx.cards[d].dispatch;
  for (const IndexBlock& b : indexBlocks(ctx, d, plan, tg)) {
    co_await readIndexBlock(core, dispatched, b.first, b.count, ub.idx, ub.scales);
    for (std::int64_t i = 0; i < b.count; ++i) {
      if (st.full()) co_await st.flush(ring);
      const std::int64_t row = b.first + i;
      RecordMeta meta;
      meta.srcRank = ub.idx->as<std::int32_t>()[i * 3];
      meta.token = ub.idx->as<std::int32_t>()[i * 3 + 1];
      if (plan.lane(ctx, b.owner, meta.token) != tg.lane) continue;  // another lane's token
      meta.k = 1;
      meta.weights[0] = ub.scales->as<float>()[i];
      core.copy(st.nextRow(), Region{experts.expertOut, row * ctx.rowBytes, ctx.rowBytes});
      st.metas.push_back(meta);
      st.rowsRead.push_back(row);
    }
  }
  co_await st.flush(ring);
}

}  // namespace

Task combineSender(LayerContext& ctx, int d, AiCore& core, std::shared_ptr<CombineRings> rings,
                   std::vector<SenderTarget> targets) {
  Machine& m = ctx.m;
  const ExpertTensors& experts = ctx.cards[d].experts;
  const CombinePlan& plan = rings->plan;
  SenderBuffers ub{m.allocUb(core, kIdxRows * 12, "expand_idx", false),
                   m.allocUb(core, kIdxRows * 4, "expand_scales", false)};
  if (ctx.sc.combine.sumLocalExperts) {
    ub.sum = m.allocUb(core, ctx.hidden * 4LL, "expert_sum", true);
    for (int i = 0; i < 2; ++i)
      ub.yRow[i] = m.allocUb(core, ctx.rowBytes, "expert_row" + std::to_string(i), true);
  }
  SenderStaging st(ctx, core, experts.expertOut);  // sized from the UB the buffers above left
  for (const SenderTarget& tg : targets) {
    RingBuffer& ring = *rings->ipc[tg.f][ctx.localOf(d) * plan.lanes + tg.lane];
    if (ctx.sc.combine.sumLocalExperts)
      co_await sendSummed(ctx, d, core, plan, tg, ring, st, ub);
    else
      co_await sendRows(ctx, d, core, plan, tg, ring, st, ub);
  }
  co_await st.publishWritten();
  co_await core.fence(Pipe::Scalar);  // every tail write has landed
  // The card's last sender has read every expert row into a ring: expert_out is dead, and
  // nothing allocated later in the stage would reuse its pages.
  if (--rings->sendersLeft[d] == 0 && ctx.freeDeadTensors)
    m.discard(experts.expertOut, /*keepWarm=*/false);
}

}  // namespace moe::streaming_combine
