// Phased dispatch, the "old" design the streaming one replaces (DESIGN.md §3.3):
//   A. all-to-all: every sender writes each token into a worst-case-sized window slot on
//      its destination (HCCS inside the server; RDMA to the same local index elsewhere);
//   SyncAll;
//   B. forward: each card copies the tokens that arrived by RDMA into the windows of the
//      cards of its server they are routed to;
//   SyncAll;
//   C. local scatter: receivers reorder the windows into expert-major expandX.
// No flow control is needed because every window holds the worst case (BS records per
// source), which is what makes its buffer footprint large.

#include <algorithm>
#include <memory>

#include "core/kernels/dispatch_common.h"
#include "core/kernels/kernels.h"

namespace moe {

namespace {

// A window of record slots in GM. Headers travel in a side table as in the rings.
struct Window {
  Buffer* data = nullptr;
  std::vector<RecordMeta> headers;
};

struct PhasedWindows {
  std::vector<std::vector<Window>> direct;            // [d][local s]
  std::vector<std::vector<Window>> rdma;              // [f][server S']
  std::vector<std::vector<std::vector<Window>>> fwd;  // [d][local f][server S']
  SyncBarrier* afterA = nullptr;
  SyncBarrier* afterB = nullptr;
};

struct CoreJob {
  bool sender = false, forwarder = false, receiver = false;
  int senderIndex = 0, forwarderIndex = 0, receiverIndex = 0;
};

Task phaseA(LayerContext& ctx, int s, AiCore& core, PhasedWindows& w, int senderIndex) {
  Machine& m = ctx.m;
  const InputTensors& input = ctx.cards[s].input;
  // Rows are gathered as bf16 records (gb apart) and sent as dispatch records (rb apart):
  // the same with bf16, packed to fp8 before sending with fp8.
  const std::int64_t gb = ctx.recordBytes, rb = ctx.dispatchRecordBytes;
  const std::int64_t chunk = ctx.sc.rings.dispatch.chunkBytes;
  const std::int64_t perBatch = std::max<std::int64_t>(1, chunk / gb);
  RoutingInUb routing = allocRouting(ctx, core);
  co_await loadRouting(ctx, core, s, routing, 0);
  Buffer* staging = m.allocUb(core, perBatch * gb, "staging", true);
  Buffer* gmStage = nullptr;
  // Targets: same-server cards, then remote servers; round-robin over the sender cores.
  int target = 0;
  const int ns = ctx.sc.rings.dispatch.senderCores;
  auto mine = [&] { return target++ % ns == senderIndex; };
  std::vector<std::pair<bool, int>> targets;  // (remote, card or server)
  for (int l = 0; l < ctx.cardsPerServer; ++l)
    if (mine()) targets.push_back({false, ctx.serverOf(s) * ctx.cardsPerServer + l});
  for (int S = 0; S < ctx.servers; ++S)
    if (S != ctx.serverOf(s) && mine()) targets.push_back({true, S});
  for (auto [remote, dest] : targets) {
    auto wanted = [&](int rank) { return remote ? ctx.serverOf(rank) == dest : rank == dest; };
    Window& win = remote ? w.rdma[dest * ctx.cardsPerServer + ctx.localOf(s)][ctx.serverOf(s)]
                         : w.direct[dest][ctx.localOf(s)];
    if (remote && !gmStage) {
      gmStage = m.allocGm(s, perBatch * rb, core.name() + ".a2a-stage", true);
      ctx.stageScratch.push_back(gmStage);  // dead once dispatch is over
    }
    std::int64_t slot = 0, inBatch = 0;
    auto flush = [&]() -> Task {
      if (inBatch == 0) co_return;
      if (ctx.quantizedDispatch) co_await packQuantizedRecords(ctx, core, staging, inBatch);
      const std::int64_t bytes = inBatch * rb;
      const Region dst{win.data, (slot - inBatch) * rb, bytes};
      if (!remote) {
        co_await core.copy(dst, Region{staging, 0, bytes});
      } else {
        co_await core.copy(Region{gmStage, 0, bytes}, Region{staging, 0, bytes});
        co_await core.rdmaWrite(dst, Region{gmStage, 0, bytes});
      }
      inBatch = 0;
    };
    for (int t = 0; t < ctx.tokensPerRank; ++t) {
      // The next routing window (only when the batch exceeds one window).
      if (!routing.holds(t)) co_await loadRouting(ctx, core, s, routing, t);
      const RecordMeta meta = tokenMeta(ctx, s, t, routing, wanted);
      if (meta.cardMask == 0) continue;
      core.copy(Region{staging, inBatch * gb + ctx.metaBytes, ctx.rowBytes},
                Region{input.x, t * ctx.rowBytes, ctx.rowBytes});
      win.headers[static_cast<std::size_t>(slot)] = meta;
      ++slot;
      if (++inBatch == perBatch) {
        co_await core.fence(Pipe::Mte2);
        co_await flush();
      }
    }
    co_await core.fence(Pipe::Mte2);
    co_await flush();
  }
}

Task phaseB(LayerContext& ctx, int f, AiCore& core, PhasedWindows& w, const std::int32_t* counts,
            int forwarderIndex) {
  const std::int64_t rb = ctx.dispatchRecordBytes;  // forwarded as they came (bf16 or fp8)
  const std::int64_t perBatch = std::max<std::int64_t>(1, ctx.sc.rings.dispatch.chunkBytes / rb);
  Buffer* rx = ctx.m.allocUb(core, perBatch * rb, "rx", true);
  const int cols = ctx.countCols();  // one channel: the phased design has no per-channel rings
  int n = 0;
  for (int S = 0; S < ctx.servers; ++S) {
    if (S == ctx.serverOf(f) || n++ % ctx.sc.rings.dispatch.forwarderCores != forwarderIndex)
      continue;
    const int source = S * ctx.cardsPerServer + ctx.localOf(f);
    const std::int64_t records = counts[source * cols + ctx.colToServer(0)];
    Window& in = w.rdma[f][S];
    std::vector<std::int64_t> outSlot(ctx.cardsPerServer, 0);
    for (std::int64_t r0 = 0; r0 < records; r0 += perBatch) {
      const std::int64_t cnt = std::min(perBatch, records - r0);
      co_await core.copy(Region{rx, 0, cnt * rb}, Region{in.data, r0 * rb, cnt * rb});
      ctx.consumed(Region{in.data, r0 * rb, cnt * rb});  // one forwarder reads each window
      for (std::int64_t i = 0; i < cnt; ++i) {
        const RecordMeta& meta = in.headers[static_cast<std::size_t>(r0 + i)];
        for (int l = 0; l < ctx.cardsPerServer; ++l) {
          if (!(meta.cardMask >> l & 1)) continue;
          Window& out = w.fwd[ctx.serverOf(f) * ctx.cardsPerServer + l][ctx.localOf(f)][S];
          out.headers[static_cast<std::size_t>(outSlot[l])] = meta;
          core.copy(Region{out.data, outSlot[l]++ * rb, rb}, Region{rx, i * rb, rb});
        }
      }
      co_await core.fence(Pipe::Mte3);
    }
  }
}

Task phaseC(LayerContext& ctx, int d, AiCore& core, PhasedWindows& w, const RecvPlan& plan,
            int receiverIndex) {
  Machine& m = ctx.m;
  const std::int64_t rb = ctx.dispatchRecordBytes;
  // Batches of as many records as bf16 ones fit a chunk, so the fp8 rows dequantized into
  // `rows` take no more UB than a chunk.
  const std::int64_t perBatch =
      std::max<std::int64_t>(1, ctx.sc.rings.dispatch.chunkBytes / ctx.recordBytes);
  if (receiverIndex == 0) publishRecvTables(ctx, core, d, plan);  // one receiver per card
  Buffer* rx = m.allocUb(core, perBatch * rb, "rx", true);
  Buffer* rows =
      ctx.quantizedDispatch ? m.allocUb(core, perBatch * ctx.rowBytes, "rows", true) : nullptr;
  Buffer* side = m.allocUb(core, perBatch * placeSideBytes(ctx.topK), "side", false);
  std::vector<std::int32_t> next(plan.channelStart.size(), 0);
  // Slots: direct windows by source card, then forwarded windows.
  std::vector<std::pair<Window*, int>> slots;  // (window, source rank)
  for (int l = 0; l < ctx.cardsPerServer; ++l)
    slots.push_back({&w.direct[d][l], ctx.serverOf(d) * ctx.cardsPerServer + l});
  for (int l = 0; l < ctx.cardsPerServer; ++l)
    for (int S = 0; S < ctx.servers; ++S)
      if (S != ctx.serverOf(d)) slots.push_back({&w.fwd[d][l][S], S * ctx.cardsPerServer + l});
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (static_cast<int>(i % ctx.sc.rings.dispatch.receiverCores) != receiverIndex) continue;
    auto [win, source] = slots[i];
    const std::int64_t records = plan.tokensFrom[source];
    for (std::int64_t r0 = 0; r0 < records; r0 += perBatch) {
      const std::int64_t cnt = std::min(perBatch, records - r0);
      co_await core.copy(Region{rx, 0, cnt * rb}, Region{win->data, r0 * rb, cnt * rb});
      ctx.consumed(Region{win->data, r0 * rb, cnt * rb});  // one receiver reads each window
      if (rows) co_await unpackQuantizedRecords(ctx, core, rx, cnt, rows);
      for (std::int64_t j = 0; j < cnt; ++j)
        placeRow(ctx, core, d, win->headers[static_cast<std::size_t>(r0 + j)],
                 rows ? Region{rows, j * ctx.rowBytes, ctx.rowBytes}
                      : Region{rx, j * rb + ctx.metaBytes, ctx.rowBytes},
                 plan, next, side, static_cast<int>(j));
      co_await core.fence(Pipe::Mte3);
    }
  }
}

Task phasedCore(LayerContext& ctx, int card, AiCore& core, std::shared_ptr<PhasedWindows> w,
                CoreJob job) {
  // Every core of the design takes part in both barriers, busy in its phase or not.
  const int cols = ctx.countCols();
  Buffer* counts = ctx.m.allocUb(core, ctx.ranks * cols * 4LL, "counts", false);
  co_await core.copy(whole(counts), whole(ctx.cards[card].dispatch.recvCounts));
  if (job.sender) {
    core.setRole(Role::Sender);
    co_await phaseA(ctx, card, core, *w, job.senderIndex);
  }
  co_await core.fence(Pipe::Mte3);
  co_await core.fence(Pipe::Scalar);
  co_await core.syncAll(*w->afterA);
  if (w->afterB) {
    if (job.forwarder) {
      core.setRole(Role::Forwarder);
      co_await phaseB(ctx, card, core, *w, counts->as<std::int32_t>(), job.forwarderIndex);
    }
    co_await core.syncAll(*w->afterB);
  }
  if (job.receiver) {
    core.setRole(Role::Receiver);
    co_await core.vector(ctx.ranks * cols, 4);  // prefix sums
    const RecvPlan plan = planFromCounts(ctx, counts->as<std::int32_t>());
    co_await phaseC(ctx, card, core, *w, plan, job.receiverIndex);
  }
}

}  // namespace

void launchDispatchPhased(LayerContext& ctx, Latch& done) {
  Machine& m = ctx.m;
  const RingTiling& t = ctx.sc.rings.dispatch;
  auto w = std::make_shared<PhasedWindows>();
  const std::int64_t slotBytes =
      ctx.tokensPerRank * ctx.dispatchRecordBytes;  // worst case: every token
  auto window = [&](int card, const std::string& name) {
    ctx.commBufferBytes += slotBytes;
    Buffer* b = m.allocGm(card, slotBytes, name, true, /*sparse=*/true);
    ctx.stageScratch.push_back(b);
    return Window{b, std::vector<RecordMeta>(ctx.tokensPerRank)};
  };
  w->direct.resize(ctx.ranks);
  w->rdma.resize(ctx.ranks);
  w->fwd.resize(ctx.ranks);
  for (int d = 0; d < ctx.ranks; ++d) {
    for (int l = 0; l < ctx.cardsPerServer; ++l)
      w->direct[d].push_back(window(d, "win.direct" + std::to_string(l)));
    w->rdma[d].resize(ctx.servers);
    w->fwd[d].assign(ctx.cardsPerServer, std::vector<Window>(ctx.servers));
    for (int S = 0; S < ctx.servers; ++S) {
      if (S == ctx.serverOf(d)) continue;
      w->rdma[d][S] = window(d, "win.rdma.server" + std::to_string(S));
      for (int l = 0; l < ctx.cardsPerServer; ++l)
        w->fwd[d][l][S] = window(d, "win.fwd" + std::to_string(l) + ".server" + std::to_string(S));
    }
  }
  const int perCard = t.senderCores + t.forwarderCores + t.receiverCores;
  w->afterA = &ctx.emu.addBarrier("dispatch.phased.A", ctx.ranks * perCard);
  if (ctx.servers > 1) w->afterB = &ctx.emu.addBarrier("dispatch.phased.B", ctx.ranks * perCard);
  for (int c = 0; c < ctx.ranks; ++c)
    for (int i = 0; i < perCard; ++i) {
      CoreJob job;
      job.sender = i < t.senderCores;
      job.forwarder = !job.sender && i < t.senderCores + t.forwarderCores;
      job.receiver = !job.sender && !job.forwarder;
      job.senderIndex = i;
      job.forwarderIndex = i - t.senderCores;
      job.receiverIndex = i - t.senderCores - t.forwarderCores;
      const Role first = job.sender      ? Role::Sender
                         : job.forwarder ? Role::Forwarder
                                         : Role::Receiver;
      done.add(1);
      ctx.emu.launch(m.aiv(c, i), first, phasedCore(ctx, c, m.aiv(c, i), w, job), &done);
    }
}

}  // namespace moe
