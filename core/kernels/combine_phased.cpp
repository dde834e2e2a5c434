// Phased combine: the "old code" of seed 000, the layered A2 combine (DESIGN.md §3.5a).
//   1. GM2IPC: every expert card writes its output rows, with their weights, into the IPC
//      window of the same-server card that forwards for the rows' owners (local index of
//      the owner). Windows are sized for the worst case.
//   2. SyncAll.
//   3. SumToWindow: each forwarder core sums, per owner, the weighted rows of all windows
//      into a full fp32 partial buffer; AlltoAllServerDispatch sends each finished buffer
//      whole to its owner's server window (RDMA; a local copy for the card itself), while
//      the core goes on summing the next owner.
//   4. SyncAll.
//   5. SumToServer: receivers add the servers' partials per token, round once, write XOut.

#include <algorithm>
#include <memory>

#include "core/kernels/combine_common.h"
#include "core/kernels/kernels.h"
#include "core/util/bf16.h"

namespace moe {

namespace {

struct Window {
  Buffer* data = nullptr;
  std::vector<RecordMeta> headers;  // side table, as in the rings: one per record written
  std::int64_t used() const { return static_cast<std::int64_t>(headers.size()); }
};

struct PhasedCombine {
  std::vector<std::vector<Window>> ipc;            // [f][dLocal]
  std::vector<std::vector<Buffer*>> partial;       // [f][server of owner]: BS*H f32
  std::vector<std::vector<Buffer*>> serverWindow;  // [r][source server]: BS*H f32
  SyncBarrier* afterGm2Ipc = nullptr;
  SyncBarrier* afterSend = nullptr;
};

Task gm2ipc(LayerContext& ctx, int d, AiCore& core, PhasedCombine& w, int senderIndex) {
  const DispatchTensors& dispatched = ctx.cards[d].dispatch;
  const ExpertTensors& experts = ctx.cards[d].experts;
  const std::int64_t rb = ctx.recordBytes;
  const std::int64_t perBatch = std::max<std::int64_t>(1, ctx.sc.rings.combine.chunkBytes / rb);
  Buffer* staging = ctx.m.allocUb(core, perBatch * rb, "staging", true);
  Buffer* idx = ctx.m.allocUb(core, kIdxRows * 12, "expand_idx", false);
  Buffer* scales = ctx.m.allocUb(core, kIdxRows * 4, "expand_scales", false);
  const auto* off = dispatched.offsets->as<std::int32_t>();
  const auto* len = dispatched.lengths->as<std::int32_t>();
  for (int fl = senderIndex; fl < ctx.cardsPerServer; fl += ctx.sc.rings.combine.senderCores) {
    const int f = ctx.serverOf(d) * ctx.cardsPerServer + fl;
    Window& win = w.ipc[f][ctx.localOf(d)];
    std::int64_t inBatch = 0;
    std::vector<std::int64_t> rowsRead;  // the batch's expert_out rows
    auto flush = [&]() -> Task {
      if (inBatch == 0) co_return;
      co_await core.fence(Pipe::Mte2);
      // Each expert row goes to exactly one window: the rows in UB are consumed.
      for (std::int64_t row : rowsRead)
        ctx.consumed(Region{experts.expertOut, row * ctx.rowBytes, ctx.rowBytes});
      rowsRead.clear();
      co_await core.copy(Region{win.data, (win.used() - inBatch) * rb, inBatch * rb},
                         Region{staging, 0, inBatch * rb});
      inBatch = 0;
    };
    for (int le = 0; le < ctx.placePerRank; ++le)
      for (int S = 0; S < ctx.servers; ++S) {
        const int owner = S * ctx.cardsPerServer + fl;
        const std::int64_t begin = off[le * ctx.ranks + owner], rows = len[le * ctx.ranks + owner];
        for (std::int64_t b0 = 0; b0 < rows; b0 += kIdxRows) {
          const std::int64_t n = std::min(kIdxRows, rows - b0);
          co_await readIndexBlock(core, dispatched, begin + b0, n, idx, scales);
          for (std::int64_t i = 0; i < n; ++i) {
            if (inBatch == perBatch) co_await flush();
            RecordMeta meta;
            meta.srcRank = owner;
            meta.token = idx->as<std::int32_t>()[i * 3 + 1];
            meta.weights[0] = scales->as<float>()[i];
            win.headers.push_back(meta);  // grows with use: the worst case is large
            core.copy(Region{staging, inBatch++ * rb + ctx.metaBytes, ctx.rowBytes},
                      Region{experts.expertOut, (begin + b0 + i) * ctx.rowBytes, ctx.rowBytes});
            rowsRead.push_back(begin + b0 + i);
          }
        }
      }
    co_await flush();
  }
}

Task sumToWindow(LayerContext& ctx, int f, AiCore& core, PhasedCombine& w, int forwarderIndex) {
  const std::int64_t rb = ctx.recordBytes, rowF32 = ctx.hidden * 4LL;
  Buffer* rec = ctx.m.allocUb(core, rb, "record", true);
  Buffer* sum = ctx.m.allocUb(core, rowF32, "fp32_sum", true);
  for (int S = forwarderIndex; S < ctx.servers; S += ctx.sc.rings.combine.forwarderCores) {
    const int owner = S * ctx.cardsPerServer + ctx.localOf(f);
    Buffer* partial = w.partial[f][S];
    for (int dl = 0; dl < ctx.cardsPerServer; ++dl) {
      const Window& win = w.ipc[f][dl];
      for (std::int64_t i = 0; i < win.used(); ++i) {
        const RecordMeta& meta = win.headers[static_cast<std::size_t>(i)];
        if (meta.srcRank != owner) continue;
        const Region accRow{partial, meta.token * rowF32, rowF32};
        core.copy(whole(rec), Region{win.data, i * rb, rb});
        co_await core.copy(whole(sum), accRow);      // read-modify-write of the full buffer
        ctx.consumed(Region{win.data, i * rb, rb});  // in UB now; one forwarder reads it
        co_await core.vector(ctx.hidden, 4);
        if (!sum->bytes.empty()) {
          const auto* y = reinterpret_cast<const bf16*>(rec->data() + ctx.metaBytes);
          auto* s = sum->as<float>();
          for (int h = 0; h < ctx.hidden; ++h) s[h] += meta.weights[0] * bf16ToFloat(y[h]);
        }
        co_await core.copy(accRow, whole(sum));
      }
    }
    // AlltoAllServerDispatch: the whole buffer, needed or not, to the owner's server window.
    co_await core.fence(Pipe::Mte3);
    const Region dst = whole(w.serverWindow[owner][ctx.serverOf(f)]);
    if (owner == f) {
      for (std::int64_t t = 0; t < ctx.tokensPerRank; ++t) {  // a local GM->GM copy goes through UB
        co_await core.copy(whole(sum), Region{partial, t * rowF32, rowF32});
        ctx.consumed(Region{partial, t * rowF32, rowF32});
        co_await core.copy(Region{dst.buf, t * rowF32, rowF32}, whole(sum));
      }
    } else {
      // Not awaited: summing the next owner overlaps it. Once it lands, the buffer is dead.
      OpRef sent = core.rdmaWrite(dst, whole(partial));
      if (ctx.dropConsumedRows)
        sent.op()->onLand.push_back([&ctx, partial] { ctx.consumed(whole(partial)); });
    }
  }
  co_await core.fence(Pipe::Scalar);  // every RDMA has landed before the barrier
}

Task sumToServer(LayerContext& ctx, int r, AiCore& core, PhasedCombine& w, int receiverIndex) {
  const std::int64_t rowF32 = ctx.hidden * 4LL;
  CombineFinisher finisher(ctx, core, r);
  Buffer* part = ctx.m.allocUb(core, rowF32, "partial", true);
  for (int t = receiverIndex; t < ctx.tokensPerRank; t += ctx.sc.rings.combine.receiverCores) {
    Buffer* sum = finisher.sum();
    for (int S = 0; S < ctx.servers; ++S) {
      const Region row{w.serverWindow[r][S], t * rowF32, rowF32};
      co_await core.copy(S == 0 ? whole(sum) : whole(part), row);
      ctx.consumed(row);
      if (S == 0) continue;
      co_await core.vector(ctx.hidden, 4);
      if (!sum->bytes.empty())
        for (int h = 0; h < ctx.hidden; ++h) sum->as<float>()[h] += part->as<float>()[h];
    }
    co_await finisher.finish(t);
  }
}

Task phasedCombineCore(LayerContext& ctx, int card, AiCore& core, std::shared_ptr<PhasedCombine> w,
                       int i) {
  const RingTiling& t = ctx.sc.rings.combine;
  if (i < t.senderCores) co_await gm2ipc(ctx, card, core, *w, i);
  co_await core.fence(Pipe::Mte3);
  co_await core.syncAll(*w->afterGm2Ipc);
  // Host-side frees take no emulated time. Past the barrier every expert row is in a
  // window: the card's expert_out is dead (once the host has hashed and checked it).
  if (i == 0 && ctx.freeDeadTensors)
    ctx.m.discard(ctx.cards[card].experts.expertOut, /*keepWarm=*/false);
  if (i >= t.senderCores && i < t.senderCores + t.forwarderCores) {
    core.setRole(Role::Forwarder);
    co_await sumToWindow(ctx, card, core, *w, i - t.senderCores);
  }
  co_await core.syncAll(*w->afterSend);
  // Every partial has landed in its server window: the windows and partial buffers this
  // card forwarded through are dead.
  if (i == 0) {
    for (Window& win : w->ipc[card]) ctx.m.discard(win.data, /*keepWarm=*/false);
    for (Buffer* b : w->partial[card]) ctx.m.discard(b, /*keepWarm=*/false);
  }
  if (i >= t.senderCores + t.forwarderCores) {
    core.setRole(Role::Receiver);
    co_await sumToServer(ctx, card, core, *w, i - t.senderCores - t.forwarderCores);
  }
}

}  // namespace

void launchCombinePhased(LayerContext& ctx, Latch& done) {
  Machine& m = ctx.m;
  const RingTiling& t = ctx.sc.rings.combine;
  auto w = std::make_shared<PhasedCombine>();
  // Worst case per (forwarder, expert card): every token of every owner it forwards for,
  // once per expert that card holds for it.
  const std::int64_t slots = static_cast<std::int64_t>(ctx.servers) * ctx.tokensPerRank *
                             std::min(ctx.topK, ctx.placePerRank);
  const std::int64_t fullBuffer = static_cast<std::int64_t>(ctx.tokensPerRank) * ctx.hidden * 4;
  w->ipc.resize(ctx.ranks);
  w->partial.resize(ctx.ranks);
  w->serverWindow.resize(ctx.ranks);
  for (int f = 0; f < ctx.ranks; ++f) {
    for (int dl = 0; dl < ctx.cardsPerServer; ++dl) {
      w->ipc[f].push_back(Window{
          m.allocGm(f, slots * ctx.recordBytes, "combine.ipc-win" + std::to_string(dl), true, true),
          {}});
      ctx.combineBufferBytes += slots * ctx.recordBytes;
    }
    for (int S = 0; S < ctx.servers; ++S) {
      w->partial[f].push_back(
          m.allocGm(f, fullBuffer, "combine.partial.server" + std::to_string(S), true));
      w->serverWindow[f].push_back(
          m.allocGm(f, fullBuffer, "combine.server-win" + std::to_string(S), true));
      ctx.combineBufferBytes += 2 * fullBuffer;
    }
  }
  const int perCard = t.senderCores + t.forwarderCores + t.receiverCores;
  w->afterGm2Ipc = &ctx.emu.addBarrier("combine.phased.gm2ipc", ctx.ranks * perCard);
  w->afterSend = &ctx.emu.addBarrier("combine.phased.send", ctx.ranks * perCard);
  for (int c = 0; c < ctx.ranks; ++c)
    for (int i = 0; i < perCard; ++i) {
      const Role first = i < t.senderCores                      ? Role::Sender
                         : i < t.senderCores + t.forwarderCores ? Role::Forwarder
                                                                : Role::Receiver;
      done.add(1);
      ctx.emu.launch(m.aiv(c, i), first, phasedCombineCore(ctx, c, m.aiv(c, i), w, i), &done);
    }
}

}  // namespace moe
