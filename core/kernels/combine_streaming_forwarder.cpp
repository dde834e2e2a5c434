// The streaming combine's forwarder role (combine_streaming.cpp has the whole protocol).

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

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

// Per (owner server, token) partial being summed by one forwarder lane.
struct PartialSlot {
  std::int32_t seen = 0;        // contributions added so far
  int window = -1;              // UB window row holding the running sum, or -1
  std::int64_t workspace = -1;  // row in the GM workspace (spill target)
};

// Where `key` sits in the ascending `keys`; a key the lane never listed is a kernel bug.
std::size_t positionOf(const std::vector<std::int64_t>& keys, std::int64_t key, const char* what) {
  const auto it = std::lower_bound(keys.begin(), keys.end(), key);
  if (it == keys.end() || *it != key)
    throw std::logic_error(std::string("combine forwarder: ") + what);
  return static_cast<std::size_t>(it - keys.begin());
}

// The partials one lane sums, keyed by owner server S and token t (key S * BS + t), in key
// order; a partial's index here is also its row in the GM workspace. Only the lane's own
// keys are held: a table over every key cost 16 B x S x BS per lane (64 KB at 32 servers and
// 128 tokens, 134 MB over the 2,048 lanes of a 256-rank run) for the few it sums.
struct LaneSlots {
  std::vector<std::int64_t> keys;  // ascending
  std::vector<PartialSlot> slots;  // by index, parallel to keys

  void add(std::int64_t key) {
    slots.push_back(PartialSlot{0, -1, static_cast<std::int64_t>(keys.size())});
    keys.push_back(key);
  }
  std::size_t indexOf(std::int64_t key) const {
    return positionOf(keys, key, "a partial for another lane");
  }
  std::int64_t size() const { return static_cast<std::int64_t>(keys.size()); }
};

// One destination partial ring on another server: completed partials gather in a GM
// staging area (two halves: one fills while the other's RDMA post is in flight) and leave
// in one post of up to combine.rdma_batch_bytes (HCCL BatchWrite).
struct RdmaBatch {
  RingBuffer* ring = nullptr;
  std::int64_t stageAt = -1;  // its staging area's offset in the lane's staging buffer
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
  // Every batch's staging area, side by side in one GM buffer: a buffer record per batch
  // was some 98,000 records at 256 ranks.
  Buffer* stage = nullptr;
  // By key S * channels + c, ascending: only the (server, channel) rings this lane sends
  // to, about one in `lanes` of them (a table over all was 22 KB per lane at 32 servers).
  std::vector<std::int64_t> keys;
  std::vector<RdmaBatch> batches;  // parallel to keys

  RdmaBatch& toward(std::int64_t key) {
    return batches[positionOf(keys, key, "a partial toward a ring the lane does not feed")];
  }

  Task post(RdmaBatch& b) {
    if (b.metas.empty()) co_return;
    const std::int64_t n = static_cast<std::int64_t>(b.metas.size()) * pb;
    co_await b.ring->waitSpace(core, n);
    OpRef op =
        b.ring->writeByRdma(core, Region{stage, b.stageAt + b.half * perPost * pb, n}, b.metas, pb);
    b.ring->publishTail(core, op);  // ordered behind the data on the queue pair
    b.metas.clear();
    if (b.remaining == 0) {  // the batch's last post: nothing will wait for a half again
      b.posted[0] = b.posted[1] = OpRef();  // (the lane's closing fence waits for the post)
      b.metas.shrink_to_fit();
      co_return;
    }
    b.posted[b.half] = op;
    b.half ^= 1;
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
    if (b.metas.empty()) {  // this half's last post must have read its staging rows
      if (!b.posted[b.half].done()) co_await b.posted[b.half];
      b.posted[b.half] = OpRef();  // a landed post's record need not stay
    }
    const std::int64_t at =
        b.stageAt + (b.half * perPost + static_cast<std::int64_t>(b.metas.size())) * pb;
    co_await core.copy(Region{stage, at, pb}, src);  // landed before the post reads it
    b.metas.push_back(meta);
    --b.remaining;
    if (static_cast<std::int64_t>(b.metas.size()) == perPost || b.remaining == 0) co_await post(b);
  }
};

// The lane's UB window of fp32 running sums, one row per partial being summed, with the
// least recently used row spilled to the GM workspace when a new partial needs a row.
struct AccumWindow {
  AccumWindow(AiCore& core, std::vector<PartialSlot>& slots, Buffer* win, int rows, Buffer* acc,
              std::int64_t accBytes, std::int64_t metaBytes, std::int64_t rowF32)
      : core(core),
        slots(slots),
        win(win),
        acc(acc),
        accBytes(accBytes),
        metaBytes(metaBytes),
        rowF32(rowF32),
        key(rows, -1),
        lastUse(rows, 0) {}
  AiCore& core;
  std::vector<PartialSlot>& slots;
  Buffer* win;
  Buffer* acc;  // the GM workspace, or null when the window holds every partial
  std::int64_t accBytes, metaBytes, rowF32;
  std::vector<std::int64_t> key, lastUse;
  std::int64_t clock = 0;

  Region row(int w) const { return Region{win, w * accBytes + metaBytes, rowF32}; }
  Region spilled(const PartialSlot& s) const { return Region{acc, s.workspace * rowF32, rowF32}; }
  // A free row, or else the least recently used one.
  int victim() const {
    for (int j = 0; j < static_cast<int>(key.size()); ++j)
      if (key[j] < 0) return j;
    int w = 0;
    for (int j = 1; j < static_cast<int>(key.size()); ++j)
      if (lastUse[j] < lastUse[w]) w = j;
    return w;
  }
  // Gives slot `k` a row (spilling the row's holder first, reading back the slot's own sum
  // if it was spilled earlier) and marks it used.
  Task bringIn(std::size_t k, bool first) {
    PartialSlot& s = slots[k];
    if (s.window < 0) {
      const int w = victim();
      if (key[w] >= 0) {  // spill: landed before the row is reused
        PartialSlot& old = slots[static_cast<std::size_t>(key[w])];
        co_await core.copy(spilled(old), row(w));
        old.window = -1;
      }
      s.window = w;
      key[w] = static_cast<std::int64_t>(k);
      if (!first) co_await core.copy(row(w), spilled(s));  // spilled earlier: read back
    }
    lastUse[s.window] = ++clock;
  }
  void release(PartialSlot& s) {
    key[s.window] = -1;
    s.window = -1;
  }
};

// Batches toward the partial rings on other servers: one per (owner server, channel) that
// this lane sends partials to over RDMA, with its GM staging area and the number of
// partials it will carry.
HeldBatches openBatches(LayerContext& ctx, int f, AiCore& core, const CombineRings& rings,
                        const LaneSlots& lane) {
  const CombinePlan& plan = rings.plan;
  // Whole partials per post: as many as rdma_batch_bytes holds, at least one, at most what
  // one write into a partial ring can carry (its capacity).
  const std::int64_t pb = partialRecordBytes(ctx.sc);
  const std::int64_t capacity = ctx.sc.rings.combine.chunkBytes * ctx.sc.rings.combine.queueChunks;
  const std::int64_t perPost =
      std::max<std::int64_t>(1, std::min(ctx.sc.combine.rdmaBatchBytes, capacity) / pb);
  HeldBatches held{core, pb, perPost, nullptr, {}, {}};
  // The rings first (their keys, sorted), then how many partials each one carries.
  const auto sendsOver = [&](std::int64_t key, int& S, int& c) {
    S = static_cast<int>(key / ctx.tokensPerRank);
    c = plan.channel(ctx, static_cast<int>(key % ctx.tokensPerRank));
    return S * ctx.cardsPerServer + ctx.localOf(f) != f;  // the owner is on another card
  };
  for (const std::int64_t key : lane.keys)
    if (int S = 0, c = 0; sendsOver(key, S, c))
      held.keys.push_back(static_cast<std::int64_t>(S) * plan.channels + c);
  std::sort(held.keys.begin(), held.keys.end());
  held.keys.erase(std::unique(held.keys.begin(), held.keys.end()), held.keys.end());
  held.batches.resize(held.keys.size());
  for (const std::int64_t key : lane.keys) {
    int S = 0, c = 0;
    if (!sendsOver(key, S, c)) continue;
    const int owner = S * ctx.cardsPerServer + ctx.localOf(f);
    RdmaBatch& b = held.toward(static_cast<std::int64_t>(S) * plan.channels + c);
    if (b.ring == nullptr)
      b.ring = rings.partial[owner][static_cast<std::size_t>(ctx.serverOf(f)) * plan.channels + c];
    ++b.remaining;
  }
  // Batch k's two halves at k * 2 * perPost * pb, in key order.
  const std::int64_t perBatch = 2 * held.perPost * held.pb;
  for (std::size_t k = 0; k < held.batches.size(); ++k)
    held.batches[k].stageAt = static_cast<std::int64_t>(k) * perBatch;
  if (!held.batches.empty())
    held.stage = ctx.m.allocGm(f, static_cast<std::int64_t>(held.batches.size()) * perBatch,
                               core.name() + ".combine-batches", true,
                               /*sparse=*/true);  // small pages: only staged partials are written
  return held;
}

// A complete partial of (owner, token) leaves for the owner's receiver: straight into the
// owner's partial ring when the owner is this card (a local copy, no NIC), else into the
// RDMA batch toward the owner's server.
Task sendPartial(LayerContext& ctx, int f, AiCore& core, const CombineRings& rings,
                 HeldBatches& held, Region out, RecordMeta p) {
  const CombinePlan& plan = rings.plan;
  const int c = plan.channel(ctx, p.token);
  if (p.srcRank != f) {
    const auto S = static_cast<std::size_t>(ctx.serverOf(p.srcRank));
    co_await held.add(held.toward(static_cast<std::int64_t>(S) * plan.channels + c), out, p);
    co_return;
  }
  RingBuffer& dst =
      *rings.partial[f][static_cast<std::size_t>(ctx.serverOf(f)) * plan.channels + c];
  co_await dst.waitSpace(core, held.pb);
  dst.writeFromUb(core, out, {p}, held.pb);
  co_await core.fence(Pipe::Mte3);  // landed: the tail may say so, the row is free
  dst.publishTail(core);
}

// The finished fp32 sum rounded once to the bf16 partial record that goes on the wire.
Task roundToBf16(LayerContext& ctx, AiCore& core, Region sum, Buffer* wire) {
  co_await core.vector(ctx.hidden, 4);
  if (wire->bytes.empty()) co_return;
  const auto* p = reinterpret_cast<const float*>(sum.ptr());
  auto* o = reinterpret_cast<bf16*>(wire->data() + ctx.metaBytes);
  for (int h = 0; h < ctx.hidden; ++h) o[h] = floatToBf16(p[h]);
}

}  // namespace

Task forwarderCore(LayerContext& ctx, int f, AiCore& core,
                   std::shared_ptr<const CombineRings> rings, int lane) {
  Machine& m = ctx.m;
  const CombinePlan& plan = rings->plan;
  const bool bf16Wire = ctx.sc.combine.partialDtype == PartialDtype::Bf16;
  const std::int64_t rb = ctx.recordBytes, pb = partialRecordBytes(ctx.sc);
  const std::int64_t accBytes = partialAccumBytes(ctx.sc), rowF32 = ctx.hidden * 4LL;
  const int batch =
      static_cast<int>(std::max<std::int64_t>(1, ctx.sc.rings.combine.chunkBytes / rb));
  Buffer* rx = m.allocUb(core, batch * rb, "rx", true);
  // The partials this lane sums: (owner server S, token t) whose channel maps to the lane.
  const auto& expected = plan.fwdCount[f];
  LaneSlots mine;
  for (int S = 0; S < ctx.servers; ++S)
    for (int t = 0; t < ctx.tokensPerRank; ++t) {
      const std::int64_t key = static_cast<std::int64_t>(S) * ctx.tokensPerRank + t;
      if (expected[static_cast<std::size_t>(key)] > 0 &&
          plan.laneOf(S, plan.channel(ctx, t)) == lane)
        mine.add(key);
    }
  const std::int64_t slotCount = mine.size();
  std::vector<PartialSlot>& slots = mine.slots;
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
  AccumWindow sums(core, slots, win, window, acc, accBytes, ctx.metaBytes, rowF32);

  HeldBatches held = openBatches(ctx, f, core, *rings, mine);

  auto reduce = [&](RingBuffer&, const std::vector<RecordMeta>& metas) -> Task {
    for (std::size_t i = 0; i < metas.size(); ++i) {
      const RecordMeta& meta = metas[i];
      const int S = ctx.serverOf(meta.srcRank);
      const std::int64_t key = static_cast<std::int64_t>(S) * ctx.tokensPerRank + meta.token;
      const std::size_t k = mine.indexOf(key);
      PartialSlot& s = slots[k];
      const bool first = s.seen == 0;
      const bool last = ++s.seen == expected[static_cast<std::size_t>(key)];
      co_await sums.bringIn(k, first);
      co_await core.vector(ctx.hidden, 4);  // sum += w * y, in fp32
      const Region sum = sums.row(s.window);
      if (!win->bytes.empty()) {
        const auto* y = rx->as<bf16>() + (static_cast<std::int64_t>(i) * rb + ctx.metaBytes) / 2;
        auto* p = reinterpret_cast<float*>(sum.ptr());
        const float w = meta.weights[0];
        for (int h = 0; h < ctx.hidden; ++h) p[h] = (first ? 0.0f : p[h]) + w * bf16ToFloat(y[h]);
      }
      if (!last) continue;
      if (acc != nullptr) ctx.consumed(sums.spilled(s));  // a spilled sum never returns to GM now
      // Complete: this server's partial of (owner, token) goes to the owner's receiver.
      Region out{win, s.window * accBytes, accBytes};
      if (bf16Wire) {  // rounded once, here
        co_await roundToBf16(ctx, core, sum, wire);
        out = whole(wire);
      }
      RecordMeta p;
      p.srcRank = meta.srcRank;  // the owner
      p.token = meta.token;
      p.contributions = expected[static_cast<std::size_t>(key)];
      co_await sendPartial(ctx, f, core, *rings, held, out, p);
      sums.release(s);
    }
  };
  // The lane's input: one IPC ring from each card of this server.
  std::vector<PolledRing> inputs;
  for (int dl = 0; dl < ctx.cardsPerServer; ++dl)
    inputs.push_back(
        {rings->ipc[f][dl * plan.lanes + lane], dl, plan.fwdRows[f][dl * plan.lanes + lane]});
  co_await pollRings(core, std::move(inputs), rx, batch, rb, reduce, &held);
  co_await held.flush();
  co_await core.fence(Pipe::Scalar);
}

}  // namespace moe::streaming_combine
