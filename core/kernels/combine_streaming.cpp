// Streaming combine (seeds 000 and 004, DESIGN.md §3.5b).
//
//   Sender (expert card d), per target (same-server card f, lane L):
//     walk the local experts in order; for each owner r of that target, the
//     Offset/Length tables give one contiguous block of expert outputs; gather the rows of
//     lane L's tokens into UB staging (over-read + crop), flush a chunk: waitSpace (lazy
//     head cache) -> write (split at the wrap) -> fence -> publish tail.
//     With combine.sum_local_experts the sender walks lane L's tokens instead and sends one
//     row per token: its local experts' w * y summed in fp32, rounded to bf16 once.
//   Forwarder (card f, lane L = a set of (destination server, token channel) pairs, so
//     every forwarder core works): polls its IPC rings; adds w * y into the token's fp32
//     partial, held in a UB window of accumulator rows (combine.ub_window_rows), the least
//     recently used row spilling to a GM workspace when the window is full; when a token has
//     all of this server's contributions, its partial (fp32, or bf16 rounded here once) goes
//     to the owner's partial ring: a local copy to its own card, or for another server into
//     that ring's GM batch, one RDMA post (HCCL BatchWrite) per combine.rdma_batch_bytes.
//   Receiver (owner card r, channel c): polls the partial rings of its token range, adds
//     the servers' partials (and the shared expert), rounds to bf16 once and writes XOut
//     (or, with AddRmsNorm, x_out, rstd and y).

#include <algorithm>
#include <memory>

#include "core/kernels/combine_common.h"
#include "core/kernels/kernels.h"
#include "core/kernels/ring_polling.h"
#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/reference/combine_reference.h"
#include "core/reference/dispatch_reference.h"

namespace moe {

namespace {

struct CombineRings {
  std::vector<std::vector<RingBuffer*>> ipc;      // [f][dLocal * lanes + lane]
  std::vector<std::vector<RingBuffer*>> partial;  // [r][S * channels + c]
  CombinePlan plan;
  std::vector<int> sendersLeft;  // [card]: sender cores still reading its expert_out
};

struct SenderTarget {
  int f;
  int lane;
};

// A block of at most kIdxRows expert_out rows of one owner, all of one local expert.
struct IndexBlock {
  int owner;
  std::int64_t first, count;
};

// The blocks of expert_out card d holds for target tg's owners, local expert by local expert
// (the Offset/Length tables give each (expert, owner) one contiguous range).
std::vector<IndexBlock> indexBlocks(const LayerContext& ctx, int d, const CombinePlan& plan,
                                    SenderTarget tg) {
  const auto* off = ctx.cards[d].offsets->as<std::int32_t>();
  const auto* len = ctx.cards[d].lengths->as<std::int32_t>();
  std::vector<IndexBlock> blocks;
  for (int le = 0; le < ctx.P; ++le)
    for (int S = 0; S < ctx.S; ++S) {
      const int r = S * ctx.cps + ctx.localOf(tg.f);  // an owner this target forwards for
      if (!plan.laneServes(S, tg.lane)) continue;
      const std::int64_t begin = off[le * ctx.R + r], rows = len[le * ctx.R + r];
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
    co_await readIndexBlock(core, ctx.cards[d], b.first, b.count, idx, scales);
    for (std::int64_t i = 0; i < b.count; ++i) {
      const std::int32_t token = idx->as<std::int32_t>()[i * 3 + 1];
      if (plan.lane(ctx, b.owner, token) != tg.lane) continue;
      rows.push_back({b.owner, token, b.first + i, scales->as<float>()[i]});
    }
  }
  auto turn = [&](int owner) { return (ctx.serverOf(owner) - ctx.serverOf(d) + ctx.S) % ctx.S; };
  std::stable_sort(rows.begin(), rows.end(), [&](const SummedRow& a, const SummedRow& b) {
    if (a.token != b.token) return a.token < b.token;
    return turn(a.owner) < turn(b.owner);
  });
}

Task combineSender(LayerContext& ctx, int d, AiCore& core, std::shared_ptr<CombineRings> rings,
                   std::vector<SenderTarget> targets) {
  Machine& m = ctx.m;
  CardTensors& g = ctx.cards[d];
  const CombinePlan& plan = rings->plan;
  const std::int64_t rb = ctx.recordBytes, chunk = ctx.sc.rings.chunkBytes;
  std::int64_t perBatch = std::max<std::int64_t>(1, chunk / rb);
  Buffer* idx = m.allocUb(core, kIdxRows * 12, "expand_idx", false);
  Buffer* scales = m.allocUb(core, kIdxRows * 4, "expand_scales", false);
  // With sum_local_experts: an fp32 running sum and two expert rows.
  const bool sumLocal = ctx.sc.combine.sumLocalExperts;
  Buffer* sum = sumLocal ? m.allocUb(core, ctx.H * 4LL, "expert_sum", true) : nullptr;
  Buffer* yRow[2] = {nullptr, nullptr};
  if (sumLocal)
    for (int i = 0; i < 2; ++i)
      yRow[i] = m.allocUb(core, ctx.rowBytes, "expert_row" + std::to_string(i), true);
  // Ping-pong staging (seeds 000 and 004): MTE2 gathers the next chunk into one half while
  // MTE3 writes the previous one to the ring. With too little UB left for two whole chunks
  // (the tiling reserves two per sender, but a tiny routing table or the summing buffers
  // leave less), two halves of fewer records; with room for less than two records, one.
  const std::int64_t ubLeft = m.hw().ubBytes - core.ubUsed();
  if (2 * perBatch * rb > ubLeft && ubLeft >= 2 * rb) perBatch = ubLeft / (2 * rb);
  const std::int64_t stagingBytes = perBatch * rb;
  const bool pingPong = 2 * stagingBytes <= ubLeft;
  Buffer* staging[2] = {m.allocUb(core, stagingBytes, "staging0", true), nullptr};
  if (pingPong) staging[1] = m.allocUb(core, stagingBytes, "staging1", true);
  int half = 0;
  // The ring whose last chunk is being written (MTE3) and not yet published: its tail is
  // published once that write lands, which the next chunk's gather overlaps.
  RingBuffer* unpublished = nullptr;
  auto publishWritten = [&]() -> Task {
    if (unpublished == nullptr) co_return;
    co_await core.fence(Pipe::Mte3);  // data lands before the tail says so
    unpublished->publishTail(core);
    unpublished = nullptr;
  };
  auto expertRow = [&](std::int64_t row) {
    return Region{g.expertOut, row * ctx.rowBytes, ctx.rowBytes};
  };
  for (const SenderTarget& tg : targets) {
    RingBuffer& ring = *rings->ipc[tg.f][ctx.localOf(d) * plan.lanes + tg.lane];
    std::vector<RecordMeta> metas;
    std::vector<std::int64_t> rowsRead;  // expert_out rows behind metas
    auto flush = [&]() -> Task {
      if (metas.empty()) co_return;
      const std::int64_t bytes = static_cast<std::int64_t>(metas.size()) * rb;
      co_await core.fence(Pipe::Mte2);   // the gathered rows are in UB
      for (std::int64_t row : rowsRead)  // each expert row is sent exactly once
        ctx.consumed(Region{g.expertOut, row * ctx.rowBytes, ctx.rowBytes});
      rowsRead.clear();
      co_await publishWritten();  // the previous chunk (this half is free again too)
      co_await ring.waitSpace(core, bytes);
      ring.writeFromUb(core, Region{staging[half], 0, bytes}, metas, rb);
      unpublished = &ring;
      if (!pingPong) co_await publishWritten();  // the only half is reused next
      half = pingPong ? half ^ 1 : 0;
      metas.clear();
    };
    if (sumLocal) {
      std::vector<SummedRow> rows;
      co_await readSummedRows(ctx, d, core, plan, tg, idx, scales, rows);
      // Row j + 1 is read (MTE2) while row j is added (vector): two row buffers.
      OpRef reading;
      if (!rows.empty()) reading = core.copy(whole(yRow[0]), expertRow(rows[0].row));
      for (std::size_t j = 0; j < rows.size(); ++j) {
        const SummedRow& e = rows[j];
        const bool first = j == 0 || rows[j - 1].owner != e.owner || rows[j - 1].token != e.token;
        const bool last =
            j + 1 == rows.size() || rows[j + 1].owner != e.owner || rows[j + 1].token != e.token;
        if (first && static_cast<std::int64_t>(metas.size()) == perBatch) co_await flush();
        co_await reading;
        if (j + 1 < rows.size())
          reading = core.copy(whole(yRow[(j + 1) % 2]), expertRow(rows[j + 1].row));
        rowsRead.push_back(e.row);
        co_await core.vector(ctx.H, 4);  // sum += w * y, in fp32
        if (!sum->bytes.empty()) {
          const auto* y = yRow[j % 2]->as<bf16>();
          float* s = sum->as<float>();
          for (int h = 0; h < ctx.H; ++h)
            s[h] = (first ? 0.0f : s[h]) + e.weight * bf16ToFloat(y[h]);
        }
        if (!last) continue;
        const std::int64_t at = static_cast<std::int64_t>(metas.size()) * rb + ctx.metaBytes;
        co_await core.vector(ctx.H, 4);  // rounded to bf16 once, into the staging slot
        if (!staging[half]->bytes.empty()) {
          const float* s = sum->as<float>();
          auto* o = reinterpret_cast<bf16*>(staging[half]->data() + at);
          for (int h = 0; h < ctx.H; ++h) o[h] = floatToBf16(s[h]);
        }
        RecordMeta meta;
        meta.srcRank = e.owner;
        meta.token = e.token;
        meta.k = 1;
        meta.weights[0] = 1.0f;  // already weighted
        metas.push_back(meta);
      }
      co_await flush();
      continue;
    }
    for (const IndexBlock& b : indexBlocks(ctx, d, plan, tg)) {
      co_await readIndexBlock(core, g, b.first, b.count, idx, scales);
      for (std::int64_t i = 0; i < b.count; ++i) {
        if (static_cast<std::int64_t>(metas.size()) == perBatch) co_await flush();
        const std::int64_t row = b.first + i;
        RecordMeta meta;
        meta.srcRank = idx->as<std::int32_t>()[i * 3];
        meta.token = idx->as<std::int32_t>()[i * 3 + 1];
        if (plan.lane(ctx, b.owner, meta.token) != tg.lane) continue;  // another lane's token
        meta.k = 1;
        meta.weights[0] = scales->as<float>()[i];
        core.copy(
            Region{staging[half], static_cast<std::int64_t>(metas.size()) * rb + ctx.metaBytes,
                   ctx.rowBytes},
            expertRow(row));
        metas.push_back(meta);
        rowsRead.push_back(row);
      }
    }
    co_await flush();
  }
  co_await publishWritten();
  co_await core.fence(Pipe::Scalar);  // every tail write has landed
  // The card's last sender has read every expert row into a ring: expert_out is dead, and
  // nothing allocated later in the stage would reuse its pages.
  if (--rings->sendersLeft[d] == 0 && ctx.freeDeadTensors)
    m.discard(g.expertOut, /*keepWarm=*/false);
}

// Per (owner server, token) partial being summed by one forwarder lane.
struct PartialSlot {
  std::int32_t seen = 0;        // contributions added so far
  int window = -1;              // UB window row holding the running sum, or -1
  std::int64_t workspace = -1;  // row in the GM workspace (spill target)
};

// One destination partial ring on another server: completed partials gather in a GM
// staging area (two halves: one fills while the other's RDMA post is in flight) and leave
// in one post of up to combine.rdma_batch_bytes (HCCL BatchWrite).
struct RdmaBatch {
  RingBuffer* ring = nullptr;
  Buffer* stage = nullptr;
  std::vector<RecordMeta> metas;
  int half = 0;
  OpRef posted[2];
  std::int64_t remaining = 0;  // partials this lane still sends to the ring
};

// The lane's held batches, flushed by pollRings before it sleeps and at the end.
struct HeldBatches {
  AiCore& core;
  std::int64_t pb;
  std::int64_t perPost;
  std::vector<RdmaBatch> batches;

  Task post(RdmaBatch& b) {
    if (b.metas.empty()) co_return;
    const std::int64_t n = static_cast<std::int64_t>(b.metas.size()) * pb;
    co_await b.ring->waitSpace(core, n);
    OpRef op = b.ring->writeByRdma(core, Region{b.stage, b.half * perPost * pb, n}, b.metas, pb);
    b.ring->publishTail(core, op);  // ordered behind the data on the queue pair
    b.posted[b.half] = op;
    b.half ^= 1;
    b.metas.clear();
  }
  bool pending() const {
    for (const RdmaBatch& b : batches)
      if (!b.metas.empty()) return true;
    return false;
  }
  Task flush() {
    for (RdmaBatch& b : batches) co_await post(b);
  }
  // Appends one complete partial (UB `src`, header `meta`) to its ring's batch; posts when
  // the batch is full or the ring expects nothing more from this lane.
  Task add(RdmaBatch& b, Region src, const RecordMeta& meta) {
    if (b.metas.empty() && !b.posted[b.half].done()) co_await b.posted[b.half];
    const std::int64_t at = (b.half * perPost + static_cast<std::int64_t>(b.metas.size())) * pb;
    co_await core.copy(Region{b.stage, at, pb}, src);  // landed before the post reads it
    b.metas.push_back(meta);
    --b.remaining;
    if (static_cast<std::int64_t>(b.metas.size()) == perPost || b.remaining == 0) co_await post(b);
  }
};

Task forwarderCore(LayerContext& ctx, int f, AiCore& core,
                   std::shared_ptr<const CombineRings> rings, int lane) {
  Machine& m = ctx.m;
  const CombinePlan& plan = rings->plan;
  const CombineConfig& cc = ctx.sc.combine;
  const bool bf16Wire = cc.partialDtype == PartialDtype::Bf16;
  const std::int64_t rb = ctx.recordBytes, pb = partialRecordBytes(ctx.sc);
  const std::int64_t accBytes = partialAccumBytes(ctx.sc), rowF32 = ctx.H * 4LL;
  const int batch = static_cast<int>(std::max<std::int64_t>(1, ctx.sc.rings.chunkBytes / rb));
  Buffer* rx = m.allocUb(core, batch * rb, "rx", true);
  // The partials this lane sums: (owner server S, token t) whose channel maps to the lane.
  const auto& expected = plan.fwdCount[f];
  std::vector<PartialSlot> slots(static_cast<std::size_t>(ctx.S) * ctx.BS);
  std::int64_t slotCount = 0;
  for (int S = 0; S < ctx.S; ++S)
    for (int t = 0; t < ctx.BS; ++t) {
      const std::size_t key = static_cast<std::size_t>(S) * ctx.BS + t;
      if (expected[key] > 0 && plan.laneOf(S, plan.channel(ctx, t)) == lane)
        slots[key].workspace = slotCount++;
    }
  // UB window: accumulator rows laid out as fp32 partial records (header space + row).
  const int window = static_cast<int>(std::clamp<std::int64_t>(
      combineUbWindowRows(ctx.sc), 1, std::max<std::int64_t>(1, slotCount)));
  Buffer* win = m.allocUb(core, window * accBytes, "accum_window", true);
  Buffer* wire = bf16Wire ? m.allocUb(core, pb, "partial_bf16", true) : nullptr;
  // The GM workspace exists only when the window cannot hold every partial of the lane.
  // Sparse (small pages): only spilled rows are ever written.
  Buffer* acc = slotCount > window ? m.allocGm(f, slotCount * rowF32, core.name() + ".combine-acc",
                                               true, /*sparse=*/true)
                                   : nullptr;
  std::vector<std::int64_t> windowKey(window, -1), windowUse(window, 0);
  std::int64_t clock = 0;
  auto winRow = [&](int w) { return Region{win, w * accBytes + ctx.metaBytes, rowF32}; };
  auto accRow = [&](const PartialSlot& s) { return Region{acc, s.workspace * rowF32, rowF32}; };

  // Batches toward the partial rings on other servers.
  // Whole partials per post: as many as rdma_batch_bytes holds, at least one, at most what
  // one write into a partial ring can carry (its capacity).
  const std::int64_t capacity = ctx.sc.rings.chunkBytes * ctx.sc.rings.queueChunks;
  const std::int64_t perPost =
      std::max<std::int64_t>(1, std::min(cc.rdmaBatchBytes, capacity) / pb);
  HeldBatches held{core, pb, perPost, {}};
  held.batches.resize(static_cast<std::size_t>(ctx.S) * plan.channels);
  for (int S = 0; S < ctx.S; ++S)
    for (int t = 0; t < ctx.BS; ++t) {
      const PartialSlot& s = slots[static_cast<std::size_t>(S) * ctx.BS + t];
      const int owner = S * ctx.cps + ctx.localOf(f);
      if (s.workspace < 0 || owner == f) continue;
      const int c = plan.channel(ctx, t);
      RdmaBatch& b = held.batches[static_cast<std::size_t>(S) * plan.channels + c];
      if (b.ring == nullptr) {
        b.ring =
            rings->partial[owner][static_cast<std::size_t>(ctx.serverOf(f)) * plan.channels + c];
        b.stage = m.allocGm(
            f, 2 * perPost * pb,
            core.name() + ".combine-batch-s" + std::to_string(S) + "c" + std::to_string(c), true,
            /*sparse=*/true);  // small pages: a half holds only the partials staged in it
      }
      ++b.remaining;
    }

  std::vector<PolledRing> inputs;
  for (int dl = 0; dl < ctx.cps; ++dl) {
    RingBuffer* r = rings->ipc[f][dl * plan.lanes + lane];
    inputs.push_back({r, dl, plan.fwdRows[f][dl * plan.lanes + lane]});
  }
  auto reduce = [&](RingBuffer&, const std::vector<RecordMeta>& metas) -> Task {
    for (std::size_t i = 0; i < metas.size(); ++i) {
      const RecordMeta& meta = metas[i];
      const int S = ctx.serverOf(meta.srcRank);
      const std::size_t key = static_cast<std::size_t>(S) * ctx.BS + meta.token;
      PartialSlot& s = slots[key];
      const bool first = s.seen == 0;
      const bool last = ++s.seen == expected[key];
      if (s.window < 0) {  // bring the partial into the window: a free row, or evict the LRU
        int w = -1;
        for (int j = 0; j < window && w < 0; ++j)
          if (windowKey[j] < 0) w = j;
        if (w < 0) {
          w = 0;
          for (int j = 1; j < window; ++j)
            if (windowUse[j] < windowUse[w]) w = j;
        }
        if (windowKey[w] >= 0) {  // spill: landed before the row is reused
          PartialSlot& old = slots[static_cast<std::size_t>(windowKey[w])];
          co_await core.copy(accRow(old), winRow(w));
          old.window = -1;
        }
        s.window = w;
        windowKey[w] = static_cast<std::int64_t>(key);
        if (!first) co_await core.copy(winRow(w), accRow(s));  // spilled earlier: read back
      }
      windowUse[s.window] = ++clock;
      co_await core.vector(ctx.H, 4);  // sum += w * y, in fp32
      const Region sum = winRow(s.window);
      if (!win->bytes.empty()) {
        const auto* y = rx->as<bf16>() + (static_cast<std::int64_t>(i) * rb + ctx.metaBytes) / 2;
        auto* p = reinterpret_cast<float*>(sum.ptr());
        const float w = meta.weights[0];
        for (int h = 0; h < ctx.H; ++h) p[h] = (first ? 0.0f : p[h]) + w * bf16ToFloat(y[h]);
      }
      if (!last) continue;
      if (acc != nullptr) ctx.consumed(accRow(s));  // a spilled sum never returns to GM now
      // Complete: this server's partial of (owner, token) goes to the owner's receiver.
      Region out{win, s.window * accBytes, accBytes};
      if (bf16Wire) {  // rounded once, here
        co_await core.vector(ctx.H, 4);
        if (!wire->bytes.empty()) {
          const auto* p = reinterpret_cast<const float*>(sum.ptr());
          auto* o = reinterpret_cast<bf16*>(wire->data() + ctx.metaBytes);
          for (int h = 0; h < ctx.H; ++h) o[h] = floatToBf16(p[h]);
        }
        out = whole(wire);
      }
      const int owner = meta.srcRank;
      const int c = plan.channel(ctx, meta.token);
      RecordMeta p;
      p.srcRank = owner;
      p.token = meta.token;
      p.contributions = expected[key];
      if (owner == f) {  // the owner is this card: a local copy, no NIC
        RingBuffer& dst =
            *rings->partial[owner][static_cast<std::size_t>(ctx.serverOf(f)) * plan.channels + c];
        co_await dst.waitSpace(core, pb);
        dst.writeFromUb(core, out, {p}, pb);
        co_await core.fence(Pipe::Mte3);  // landed: the tail may say so, the row is free
        dst.publishTail(core);
      } else {
        co_await held.add(held.batches[static_cast<std::size_t>(S) * plan.channels + c], out, p);
      }
      windowKey[s.window] = -1;
      s.window = -1;
    }
  };
  co_await pollRings(core, std::move(inputs), rx, batch, rb, reduce, &held);
  co_await held.flush();
  co_await core.fence(Pipe::Scalar);
}

Task receiverCore(LayerContext& ctx, int r, AiCore& core, std::shared_ptr<const CombineRings> rings,
                  std::vector<int> channels) {
  Machine& m = ctx.m;
  const CombinePlan& plan = rings->plan;
  const std::int64_t pb = partialRecordBytes(ctx.sc);
  const bool bf16Wire = ctx.sc.combine.partialDtype == PartialDtype::Bf16;
  Buffer* rx = m.allocUb(core, pb, "rx", true);
  CombineFinisher finisher(ctx, core, r);
  Buffer* sum = finisher.sum();
  // One accumulator row per token of the channels this core owns (contiguous ranges).
  std::vector<int> accIndex(ctx.BS, -1);
  int owned = 0;
  for (int t = 0; t < ctx.BS; ++t)
    if (std::find(channels.begin(), channels.end(), plan.channel(ctx, t)) != channels.end())
      accIndex[t] = owned++;
  Buffer* acc = m.allocGm(r, static_cast<std::int64_t>(owned) * ctx.H * 4,
                          core.name() + ".combine-acc", true, /*sparse=*/true);  // row by row
  std::vector<std::int32_t> seen(ctx.BS, 0);
  const auto& servers = plan.recvServers[r];
  auto finish = [&](int t) { return finisher.finish(t); };

  std::vector<PolledRing> inputs;
  for (int c : channels)
    for (int S = 0; S < ctx.S; ++S)
      inputs.push_back({rings->partial[r][static_cast<std::size_t>(S) * plan.channels + c], S,
                        plan.recvRecords[r][static_cast<std::size_t>(S) * plan.channels + c]});
  // Tokens no expert kept (fully pruned) still get a row: zero, or the shared expert.
  for (int c : channels)
    for (int t = 0; t < ctx.BS; ++t)
      if (plan.channel(ctx, t) == c && servers[t] == 0) {
        if (!sum->bytes.empty()) std::fill_n(sum->as<float>(), ctx.H, 0.0f);
        co_await finish(t);
      }
  auto reduce = [&](RingBuffer&, const std::vector<RecordMeta>& metas) -> Task {
    const RecordMeta& meta = metas.front();  // batch of one: partials are large
    const int t = meta.token;
    const Region accRow{acc, static_cast<std::int64_t>(accIndex[t]) * ctx.H * 4, ctx.H * 4LL};
    const bool first = seen[t] == 0;
    const bool last = ++seen[t] == servers[t];
    if (!first) co_await core.copy(whole(sum), accRow);
    co_await core.vector(ctx.H, 4);
    if (!sum->bytes.empty()) {
      auto* s = sum->as<float>();
      if (bf16Wire) {
        const auto* p = reinterpret_cast<const bf16*>(rx->data() + ctx.metaBytes);
        for (int h = 0; h < ctx.H; ++h) s[h] = (first ? 0.0f : s[h]) + bf16ToFloat(p[h]);
      } else {
        const auto* p = reinterpret_cast<const float*>(rx->data() + ctx.metaBytes);
        for (int h = 0; h < ctx.H; ++h) s[h] = (first ? 0.0f : s[h]) + p[h];
      }
    }
    if (last) {
      if (!first) ctx.consumed(accRow);  // read back above for the last time
      co_await finish(t);
    } else
      co_await core.copy(accRow, whole(sum));
  };
  co_await pollRings(core, std::move(inputs), rx, 1, pb, reduce);
}

// A core that hangs (fault injection): it waits on a word nobody ever writes.
Task stalledCore(LayerContext& ctx, AiCore& core) {
  Word* never = ctx.m.makeWord(core.card(), core.name() + ".stalled");
  auto hang = core.changeOf(*never, 0, Activity::WaitData, [] {
    return std::string("stalled by fault injection (--fault stall-core)");
  });
  co_await hang;
}

}  // namespace

void launchCombineStreaming(LayerContext& ctx, Latch& done) {
  Emulation& emu = ctx.emu;
  const RingTiling& t = ctx.sc.rings;
  auto rings = std::make_shared<CombineRings>();
  rings->plan = buildCombinePlan(ctx);
  const CombinePlan& plan = rings->plan;
  rings->sendersLeft.assign(ctx.R, 0);
  auto name = [](int card) { return "card" + std::to_string(card); };
  rings->ipc.assign(
      ctx.R, std::vector<RingBuffer*>(static_cast<std::size_t>(ctx.cps) * plan.lanes, nullptr));
  rings->partial.assign(
      ctx.R, std::vector<RingBuffer*>(static_cast<std::size_t>(ctx.S) * plan.channels, nullptr));
  const std::size_t firstRing = emu.rings().size();
  for (int f = 0; f < ctx.R; ++f)
    for (int dl = 0; dl < ctx.cps; ++dl)
      for (int L = 0; L < plan.lanes; ++L) {
        const int d = ctx.serverOf(f) * ctx.cps + dl;
        rings->ipc[f][dl * plan.lanes + L] =
            &emu.addRing(name(f) + " combine IPC <- " + name(d) + " lane" + std::to_string(L),
                         RingKind::Ipc, f, d, t.chunkBytes, t.queueChunks);
      }
  for (int r = 0; r < ctx.R; ++r)
    for (int S = 0; S < ctx.S; ++S)
      for (int c = 0; c < plan.channels; ++c) {
        const int f = S * ctx.cps + ctx.localOf(r);
        rings->partial[r][static_cast<std::size_t>(S) * plan.channels + c] = &emu.addRing(
            name(r) + (f == r ? " combine local <- " : " combine RDMA <- ") + name(f) + " ch" +
                std::to_string(c),
            f == r ? RingKind::Ipc : RingKind::Rdma, r, f, t.chunkBytes, t.queueChunks);
      }
  for (std::size_t i = firstRing; i < emu.rings().size(); ++i)
    ctx.combineBufferBytes += emu.rings()[i].capacity() + 2 * kControlLineBytes;
  if (ctx.fault == Fault::DropTail) {
    // The busiest IPC ring into card 0 loses its last tail publish: its forwarder waits
    // for data that is there but never announced.
    int best = 0;
    for (int i = 1; i < ctx.cps * plan.lanes; ++i)
      if (plan.fwdRows[0][i] > plan.fwdRows[0][best]) best = i;
    rings->ipc[0][best]->dropPublishOfTail(plan.fwdRows[0][best] * ctx.recordBytes);
  }

  for (int c = 0; c < ctx.R; ++c) {
    // Senders: targets (card, lane) round-robin over the sender cores. Each card starts with
    // its own forwarders and goes on with the next card's: if every card began with card 0,
    // all senders would write into card 0's port (and feed its forwarders) at once while
    // the other cards' ports and forwarders idle, and so on card after card.
    std::vector<std::vector<SenderTarget>> perSender(t.senderCores);
    int next = 0;
    for (int j = 0; j < ctx.cps; ++j)
      for (int L = 0; L < plan.lanes; ++L) {
        const int f = ctx.serverOf(c) * ctx.cps + (ctx.localOf(c) + j) % ctx.cps;
        if (plan.fwdRows[f][ctx.localOf(c) * plan.lanes + L] == 0) continue;  // nothing to send
        perSender[next++ % t.senderCores].push_back({f, L});
      }
    for (int i = 0; i < t.senderCores; ++i) {
      if (perSender[i].empty()) continue;
      AiCore& core = ctx.m.aiv(c, i);
      for (const auto& tg : perSender[i])
        rings->ipc[tg.f][ctx.localOf(c) * plan.lanes + tg.lane]->producerCore = core.id();
      done.add(1);
      ++rings->sendersLeft[c];
      emu.launch(core, Role::Sender, combineSender(ctx, c, core, rings, perSender[i]), &done);
    }
    // Forwarders: one core per lane (a set of (destination server, channel) pairs).
    for (int L = 0; L < plan.lanes; ++L) {
      AiCore& core = ctx.m.aiv(c, t.senderCores + L);
      if (ctx.fault == Fault::StallCore && c == 0 && L == 0) {  // injected: this core hangs
        done.add(1);
        emu.launch(core, Role::Forwarder, stalledCore(ctx, core), &done);
        continue;
      }
      for (int dl = 0; dl < ctx.cps; ++dl)
        rings->ipc[c][dl * plan.lanes + L]->consumerCore = core.id();
      for (int S = 0; S < ctx.S; ++S) {
        const int owner = S * ctx.cps + ctx.localOf(c);
        for (int ch = 0; ch < plan.channels; ++ch)
          if (plan.laneOf(S, ch) == L)
            rings->partial[owner][static_cast<std::size_t>(ctx.serverOf(c)) * plan.channels + ch]
                ->producerCore = core.id();
      }
      done.add(1);
      emu.launch(core, Role::Forwarder, forwarderCore(ctx, c, core, rings, L), &done);
    }
    // Receivers: channels round-robin over the receiver cores.
    std::vector<std::vector<int>> perRecv(t.receiverCores);
    for (int ch = 0; ch < plan.channels; ++ch) perRecv[ch % t.receiverCores].push_back(ch);
    for (int i = 0; i < t.receiverCores; ++i) {
      if (perRecv[i].empty()) continue;
      AiCore& core = ctx.m.aiv(c, t.senderCores + t.forwarderCores + i);
      for (int ch : perRecv[i])
        for (int S = 0; S < ctx.S; ++S)
          rings->partial[c][static_cast<std::size_t>(S) * plan.channels + ch]->consumerCore =
              core.id();
      done.add(1);
      emu.launch(core, Role::Receiver, receiverCore(ctx, c, core, rings, perRecv[i]), &done);
    }
  }
}

}  // namespace moe
