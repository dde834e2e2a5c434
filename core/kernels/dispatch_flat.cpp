// Flat full-mesh dispatch: every token row goes straight from its source rank to each rank
// it is routed to, with no forwarder (the shape of DeepEP's low-latency kernels and of
// Ascend A2's "fullmesh" MoeDistributeDispatch; DESIGN.md §3.3 names the hierarchical designs).
//
//   Sender (source card s), per destination rank d (round-robin over the sender cores):
//     walk the tokens in order, gather the rows routed to d into UB staging (bf16, packed
//     to fp8 with dispatch_dtype fp8) and flush a batch into s's window on d:
//       same card or same server -> DataCopy UB -> d's GM (switch port or HCCS pair);
//       other server             -> UB -> GM stage, one RDMA post (rdma_post_ns on this
//                                   core's scalar pipe) straight to d;
//     then publish the window's arrival counter (records landed so far), ordered behind
//     the data: a fence and a scalar write inside a server, an RDMA word write on the same
//     queue pair across servers.
//   Receiver (card d): for each source window, waits on its counter and places the rows
//     that have arrived, expert-major and rank-minor into expandX (as both other designs).
// Windows hold the worst case (every token of the source), so no flow control is needed;
// the counters let receivers start on the first batch instead of after a barrier. One row
// travels per (token, destination rank): DeepEP's low-latency kernels send one per (token,
// expert), which docs/FIDELITY.md takes into account.

#include <algorithm>
#include <memory>
#include <string>

#include "core/kernels/dispatch_common.h"
#include "core/kernels/kernels.h"

namespace moe {

namespace {

struct FlatWindow {
  Buffer* data = nullptr;
  // Side table, as in the rings; grows as the sender writes (the count is only known to
  // the source), so EP 256 does not hold 256 x 256 worst-case tables.
  std::vector<RecordMeta> headers;
  Word* landed = nullptr;  // records of this window that have landed
};

struct FlatWindows {
  std::vector<std::vector<FlatWindow>> win;  // [destination d][source s]
};

Task flatSender(LayerContext& ctx, int s, AiCore& core, std::shared_ptr<FlatWindows> w,
                std::vector<int> targets) {
  Machine& m = ctx.m;
  const InputTensors& input = ctx.cards[s].input;
  // Rows are gathered as bf16 records (gb apart) and sent as dispatch records (rb apart).
  const std::int64_t gb = ctx.recordBytes, rb = ctx.dispatchRecordBytes;
  const std::int64_t perBatch = std::max<std::int64_t>(1, ctx.sc.rings.dispatch.chunkBytes / gb);
  RoutingInUb routing = allocRouting(ctx, core);
  co_await loadRouting(ctx, core, s, routing, 0);
  Buffer* staging = m.allocUb(core, perBatch * gb, "staging", true);
  // Two GM stages, so one batch's RDMA is in flight while the next is staged.
  Buffer* gmStage[2] = {nullptr, nullptr};
  OpRef inFlight[2];
  int next = 0;
  for (int d : targets) {
    const bool remote = ctx.serverOf(d) != ctx.serverOf(s);
    FlatWindow& win = w->win[d][s];
    if (remote && !gmStage[0])
      for (int i = 0; i < 2; ++i)
        gmStage[i] =
            m.allocGm(s, perBatch * rb, core.name() + ".flat-stage" + std::to_string(i), true);
    auto wanted = [d](int rank) { return rank == d; };
    std::int64_t slot = 0, inBatch = 0;
    auto flush = [&]() -> Task {
      if (inBatch == 0) co_return;
      if (ctx.quantizedDispatch) co_await packQuantizedRecords(ctx, core, staging, inBatch);
      const std::int64_t bytes = inBatch * rb;
      const Region dst{win.data, (slot - inBatch) * rb, bytes};
      if (!remote) {
        core.copy(dst, Region{staging, 0, bytes});
        co_await core.fence(Pipe::Mte3);    // data lands before the counter says so
        core.writeWord(*win.landed, slot);  // (staging is free: the fence saw it land)
      } else {
        Buffer* stage = gmStage[next];
        if (!inFlight[next].done()) co_await inFlight[next];  // this GM stage free again
        core.copy(Region{stage, 0, bytes}, Region{staging, 0, bytes});
        co_await core.fence(Pipe::Mte3);
        inFlight[next] = core.rdmaWrite(dst, Region{stage, 0, bytes});
        core.rdmaWriteWord(*win.landed, slot, inFlight[next]);  // same queue pair: after the data
        next ^= 1;
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
      win.headers.push_back(meta);
      ++slot;
      if (++inBatch == perBatch) {
        co_await core.fence(Pipe::Mte2);
        co_await flush();
      }
    }
    co_await core.fence(Pipe::Mte2);
    co_await flush();
  }
  co_await core.fence(Pipe::Scalar);  // counter writes and RDMA posts have landed
}

Task flatReceiver(LayerContext& ctx, int d, AiCore& core, std::shared_ptr<FlatWindows> w,
                  std::vector<int> sources, bool writesPlan) {
  Machine& m = ctx.m;
  const std::int64_t rb = ctx.dispatchRecordBytes;
  const int cols = ctx.countCols();
  Buffer* counts = m.allocUb(core, ctx.ranks * cols * 4LL, "counts", false);
  co_await core.copy(whole(counts), whole(ctx.cards[d].dispatch.recvCounts));
  co_await core.vector(ctx.ranks * cols, 4);  // prefix sums
  const RecvPlan plan = planFromCounts(ctx, counts->as<std::int32_t>());
  if (writesPlan) publishRecvTables(ctx, core, d, plan);  // one receiver per card
  // As many records per batch as bf16 ones fit a chunk, so fp8 rows dequantized into
  // `rows` take no more UB than a chunk.
  const std::int64_t batch =
      std::max<std::int64_t>(1, ctx.sc.rings.dispatch.chunkBytes / ctx.recordBytes);
  Buffer* rx = m.allocUb(core, batch * rb, "rx", true);
  Buffer* rows =
      ctx.quantizedDispatch ? m.allocUb(core, batch * ctx.rowBytes, "rows", true) : nullptr;
  Buffer* side = m.allocUb(core, batch * placeSideBytes(ctx.topK), "side", false);
  std::vector<std::int32_t> next(plan.channelStart.size(), 0);
  std::vector<std::int64_t> done(sources.size(), 0);
  auto left = [&] {
    std::int64_t n = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) n += plan.tokensFrom[sources[i]] - done[i];
    return n;
  };
  std::vector<Word*> words;  // kept across sleeps (see pollRings)
  std::vector<std::int64_t> seen;
  // What a sleeping receiver waits for, built only when asked (a deadlock diagnosis, a
  // snapshot); a sleep hands over a one-pointer function, which allocates nothing.
  auto describe = [&] {
    std::string what;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const std::int64_t expected = plan.tokensFrom[sources[i]];
      if (done[i] >= expected) continue;
      const Word* word = w->win[d][sources[i]].landed;
      what += (what.empty() ? "" : "; ") + word->name.str() + " = " + std::to_string(word->value) +
              ", " + std::to_string(expected) + " records expected";
    }
    return "flat windows: " + what;
  };
  while (left() > 0) {
    co_await core.pollWords();  // one sweep over the arrival counters
    bool progressed = false;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      FlatWindow& win = w->win[d][sources[i]];
      const std::int64_t n = std::min(batch, win.landed->value - done[i]);
      if (n <= 0) continue;
      co_await core.copy(Region{rx, 0, n * rb}, Region{win.data, done[i] * rb, n * rb});
      if (rows) co_await unpackQuantizedRecords(ctx, core, rx, n, rows);
      for (std::int64_t j = 0; j < n; ++j)
        placeRow(ctx, core, d, win.headers[static_cast<std::size_t>(done[i] + j)],
                 rows ? Region{rows, j * ctx.rowBytes, ctx.rowBytes}
                      : Region{rx, j * rb + ctx.metaBytes, ctx.rowBytes},
                 plan, next, side, static_cast<int>(j));
      co_await core.fence(Pipe::Mte3);  // rx, rows and side are reused by the next batch
      done[i] += n;
      progressed = true;
    }
    if (progressed) continue;
    words.clear();
    seen.clear();
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (done[i] >= plan.tokensFrom[sources[i]]) continue;
      Word* word = w->win[d][sources[i]].landed;
      words.push_back(word);
      seen.push_back(word->value);
    }
    // A named awaiter, not a temporary: GCC 12 destroys non-trivial temporaries of a
    // co_await full-expression twice.
    auto arrival =
        core.changeOfAny(words, seen, Activity::WaitData, [&describe] { return describe(); });
    co_await arrival;
  }
}

}  // namespace

void launchDispatchFlat(LayerContext& ctx, Latch& done) {
  Machine& m = ctx.m;
  const RingTiling& t = ctx.sc.rings.dispatch;
  auto w = std::make_shared<FlatWindows>();
  const std::int64_t windowBytes =
      ctx.tokensPerRank * ctx.dispatchRecordBytes;  // worst case: every token
  w->win.resize(ctx.ranks);
  for (int d = 0; d < ctx.ranks; ++d)
    for (int s = 0; s < ctx.ranks; ++s) {
      ctx.commBufferBytes += windowBytes;
      Buffer* b = m.allocGm(d, windowBytes, "flat.win<-card" + std::to_string(s), true,
                            /*sparse=*/true);
      ctx.stageScratch.push_back(b);
      w->win[d].push_back(
          FlatWindow{b, {}, m.makeWord(d, "flat.landed<-card" + std::to_string(s))});
    }
  // The flat design has no forwarders: its cores are senders, then receivers.
  for (int c = 0; c < ctx.ranks; ++c) {
    std::vector<std::vector<int>> perSender(t.senderCores);
    // Start with the next rank so that sources do not all hit rank 0 first.
    for (int i = 0; i < ctx.ranks; ++i) perSender[i % t.senderCores].push_back((c + i) % ctx.ranks);
    for (int i = 0; i < t.senderCores; ++i) {
      if (perSender[i].empty()) continue;
      done.add(1);
      ctx.emu.launch(m.aiv(c, i), Role::Sender, flatSender(ctx, c, m.aiv(c, i), w, perSender[i]),
                     &done);
    }
    std::vector<std::vector<int>> perRecv(t.receiverCores);
    for (int i = 0; i < ctx.ranks; ++i) perRecv[i % t.receiverCores].push_back((c + i) % ctx.ranks);
    for (int i = 0; i < t.receiverCores; ++i) {
      if (perRecv[i].empty()) continue;
      AiCore& core = m.aiv(c, t.senderCores + i);
      done.add(1);
      ctx.emu.launch(core, Role::Receiver, flatReceiver(ctx, c, core, w, perRecv[i], i == 0),
                     &done);
    }
  }
}

}  // namespace moe
