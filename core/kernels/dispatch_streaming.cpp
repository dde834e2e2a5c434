// Streaming dispatch (DESIGN.md §3.3, roles mirrored from the combine of seed 000).
//
//   Sender (source card s), per target:
//     same server  -> IPC ring on the target card      "card d IPC <- card s"
//     other server -> per token channel (a contiguous range of s's tokens, as DeepEP's
//                     channels), an RDMA ring on the card with s's local index there
//                     (hierarchical path)
//     walk the target's tokens in order, gather their rows into UB staging
//     (double-buffered), and flush a chunk: waitSpace (lazy head cache) -> write (split at
//     wrap) -> fence -> publish tail.
//   Forwarder (card f): polls its RDMA rings (one per forwarder core, with enough channels)
//     and fans each token out to the IPC rings of the cards it is routed to on f's server,
//     one per (RDMA ring, card); advances the RDMA head as it consumes.
//   Receiver (card d): polls its IPC rings (direct and forwarded) and places each row
//     expert-major, rank-minor into expandX: a channel's rows of one source arrive in token
//     order on one ring, and the counts say where each channel's rows start.
// Every consumer knows how many records to expect from the notified counts, so the run
// ends without a barrier.

#include <algorithm>
#include <memory>
#include <string>

#include "core/kernels/dispatch_common.h"
#include "core/kernels/kernels.h"
#include "core/kernels/ring_polling.h"
#include "core/plan/dispatch_tiling.h"

namespace moe {

namespace {

struct StreamingRings {
  // direct[d][local s]: IPC ring on card d fed by card s of the same server.
  std::vector<std::vector<RingBuffer*>> direct;
  // rdma[f][S' * C + ch]: RDMA ring on card f fed by card (S', local f) with its tokens of
  // channel ch.
  std::vector<std::vector<RingBuffer*>> rdma;
  // fwd[d][local f][S' * C + ch]: IPC ring on card d fed by card f's forwarder with the
  // tokens of rdma[f][S' * C + ch].
  std::vector<std::vector<std::vector<RingBuffer*>>> fwd;
};

struct SenderTarget {
  RingBuffer* ring;
  bool remote;
  int dest;         // card (same server) or server (remote)
  int first, last;  // the tokens [first, last) it carries: one channel's, or all
};

// Tokens of source s for one target inside the staged routing window, in token order, cut
// into chunk-sized batches.
std::vector<std::vector<int>> batchesFor(const LayerContext& ctx, const SenderTarget& tg,
                                         const RoutingInUb& routing) {
  const std::int64_t perBatch = ctx.sc.rings.dispatch.chunkBytes / ctx.recordBytes;
  const std::int32_t* ids = routing.ids();
  const std::uint8_t* mask = routing.keep();
  std::vector<std::vector<int>> batches(1);
  for (int i = 0; i < routing.count; ++i) {
    if (routing.first + i < tg.first || routing.first + i >= tg.last) continue;
    bool goes = false;
    for (int k = 0; k < ctx.topK; ++k) {
      if (!mask[i * ctx.topK + k]) continue;
      const int r = ctx.rankOfInstance(ids[i * ctx.topK + k]);
      goes = goes || (tg.remote ? ctx.serverOf(r) == tg.dest : r == tg.dest);
    }
    if (!goes) continue;
    if (static_cast<std::int64_t>(batches.back().size()) == perBatch) batches.emplace_back();
    batches.back().push_back(routing.first + i);
  }
  if (batches.back().empty()) batches.pop_back();
  return batches;
}

Task streamingSender(LayerContext& ctx, int s, AiCore& core, std::vector<SenderTarget> targets) {
  Machine& m = ctx.m;
  const InputTensors& input = ctx.cards[s].input;
  // Rows are gathered as bf16 records (gb apart, batchesFor) and sent as dispatch records
  // (rb apart): the same with bf16, packed to fp8 before sending with fp8.
  const std::int64_t gb = ctx.recordBytes, rb = ctx.dispatchRecordBytes;
  const std::int64_t chunk = ctx.sc.rings.dispatch.chunkBytes;
  RoutingInUb routing = allocRouting(ctx, core);
  co_await loadRouting(ctx, core, s, routing, 0);
  const int window = routingWindowTokens(ctx.tokensPerRank);
  Buffer* staging[2] = {m.allocUb(core, chunk, "staging0", true),
                        m.allocUb(core, chunk, "staging1", true)};
  Buffer* gmStage[2] = {nullptr, nullptr};
  OpRef rdmaInFlight[2];

  for (const SenderTarget& tg : targets) {
    auto wanted = [&](int rank) {
      return tg.remote ? ctx.serverOf(rank) == tg.dest : rank == tg.dest;
    };
    if (tg.remote && !gmStage[0]) {
      gmStage[0] = m.allocGm(s, chunk, core.name() + ".rdma-stage0", true);
      gmStage[1] = m.allocGm(s, chunk, core.name() + ".rdma-stage1", true);
      // Dead once dispatch is over: the combine's buffers reuse their pages.
      ctx.stageScratch.insert(ctx.stageScratch.end(), {gmStage[0], gmStage[1]});
    }
    // Window by window (one window for a batch of at most 512 tokens, loaded once above),
    // over the target's tokens only.
    for (int w0 = tg.first / window * window; w0 < tg.last; w0 += window) {
      if (!routing.holds(w0)) co_await loadRouting(ctx, core, s, routing, w0);
      const auto batches = batchesFor(ctx, tg, routing);
      // Gather: each token's row from x into its record slot in UB (over-read + crop).
      auto gather = [&](std::size_t b) {
        OpRef last;
        for (std::size_t i = 0; i < batches[b].size(); ++i)
          last = core.copy(Region{staging[b % 2], static_cast<std::int64_t>(i) * gb + ctx.metaBytes,
                                  ctx.rowBytes},
                           Region{input.x, batches[b][i] * ctx.rowBytes, ctx.rowBytes});
        return last;
      };
      OpRef gathered = batches.empty() ? OpRef{} : gather(0);
      for (std::size_t b = 0; b < batches.size(); ++b) {
        const OpRef thisBatch = gathered;
        // Double buffering: the next batch's gathers queue on MTE2 while this one flushes.
        if (b + 1 < batches.size()) gathered = gather(b + 1);
        std::vector<RecordMeta> metas;
        for (int t : batches[b]) metas.push_back(tokenMeta(ctx, s, t, routing, wanted));
        const std::int64_t bytes = static_cast<std::int64_t>(metas.size()) * rb;
        co_await thisBatch;
        if (ctx.quantizedDispatch)
          co_await packQuantizedRecords(ctx, core, staging[b % 2],
                                        static_cast<std::int64_t>(metas.size()));
        if (!tg.remote) {
          co_await tg.ring->waitSpace(core, bytes);
          tg.ring->writeFromUb(core, Region{staging[b % 2], 0, bytes}, metas, rb);
          co_await core.fence(Pipe::Mte3);  // data lands before the tail says so
          tg.ring->publishTail(core);
        } else {
          if (!rdmaInFlight[b % 2].done()) co_await rdmaInFlight[b % 2];  // GM stage free again
          core.copy(Region{gmStage[b % 2], 0, bytes}, Region{staging[b % 2], 0, bytes});
          co_await core.fence(Pipe::Mte3);
          co_await tg.ring->waitSpace(core, bytes);
          rdmaInFlight[b % 2] =
              tg.ring->writeByRdma(core, Region{gmStage[b % 2], 0, bytes}, metas, rb);
          tg.ring->publishTail(core, rdmaInFlight[b % 2]);  // ordered behind the data
        }
      }
    }
  }
  co_await core.fence(Pipe::Scalar);  // tail writes and RDMA posts have landed
}

// Each consumer reads the notified counts itself and derives what to expect per ring: the
// tokens its source sends to this rank (receivers) or to this rank's server (forwarders),
// in the ring's channel or in all of them.
Task expectFromCounts(LayerContext& ctx, int card, AiCore& core, std::vector<PolledRing>& rings,
                      bool toServer, RecvPlan* planOut) {
  const int cols = ctx.countCols();
  Buffer* counts = ctx.m.allocUb(core, ctx.ranks * cols * 4LL, "counts", false);
  co_await core.copy(whole(counts), whole(ctx.cards[card].dispatch.recvCounts));
  co_await core.vector(ctx.ranks * cols, 4);  // prefix sums
  const auto* c = counts->as<std::int32_t>();
  for (PolledRing& p : rings) {
    p.remaining = 0;
    for (int ch = 0; ch < ctx.channels; ++ch)
      if (p.channel < 0 || p.channel == ch)
        p.remaining += c[p.source * cols + (toServer ? ctx.colToServer(ch) : ctx.colToRank(ch))];
  }
  if (planOut) *planOut = planFromCounts(ctx, c);
}

Task streamingForwarder(LayerContext& ctx, int f, AiCore& core, std::vector<PolledRing> inputs,
                        std::shared_ptr<const StreamingRings> rings) {
  const std::int64_t rb = ctx.dispatchRecordBytes;  // forwarded as they came (bf16 or fp8)
  co_await expectFromCounts(ctx, f, core, inputs, true, nullptr);
  const int batch =
      static_cast<int>(std::max<std::int64_t>(1, ctx.sc.rings.dispatch.chunkBytes / rb));
  Buffer* rx = ctx.m.allocUb(core, batch * rb, "rx", true);
  const int server = ctx.serverOf(f);
  auto fanOut = [&](RingBuffer& in, const std::vector<RecordMeta>& metas) -> Task {
    // One ring carries one channel: the batch's tokens all belong to it.
    const int from = ctx.serverOf(in.producerCard()) * ctx.channels + ctx.channelOf(metas[0].token);
    std::vector<RingBuffer*> touched;
    for (int l = 0; l < ctx.cardsPerServer; ++l) {
      std::vector<std::int64_t> mine;
      for (std::size_t i = 0; i < metas.size(); ++i)
        if (metas[i].cardMask >> l & 1) mine.push_back(static_cast<std::int64_t>(i));
      if (mine.empty()) continue;
      RingBuffer* out = rings->fwd[server * ctx.cardsPerServer + l][ctx.localOf(f)][from];
      co_await out->waitSpace(core, static_cast<std::int64_t>(mine.size()) * rb);
      for (std::int64_t i : mine) out->writeFromUb(core, Region{rx, i * rb, rb}, {metas[i]}, rb);
      touched.push_back(out);
    }
    co_await core.fence(Pipe::Mte3);
    for (RingBuffer* out : touched) out->publishTail(core);
  };
  co_await pollRings(core, std::move(inputs), rx, batch, rb, fanOut);
  co_await core.fence(Pipe::Scalar);
}

Task streamingReceiver(LayerContext& ctx, int d, AiCore& core, std::vector<PolledRing> inputs,
                       bool writesPlan) {
  Machine& m = ctx.m;
  const std::int64_t rb = ctx.dispatchRecordBytes;
  RecvPlan plan;
  co_await expectFromCounts(ctx, d, core, inputs, false, &plan);
  if (writesPlan) publishRecvTables(ctx, core, d, plan);  // one receiver per card
  // As many records per batch as bf16 ones fit a chunk, so fp8 rows dequantized into
  // `rows` take no more UB than a chunk.
  const int batch = static_cast<int>(
      std::max<std::int64_t>(1, ctx.sc.rings.dispatch.chunkBytes / ctx.recordBytes));
  Buffer* rx = m.allocUb(core, batch * rb, "rx", true);
  Buffer* rows =
      ctx.quantizedDispatch ? m.allocUb(core, batch * ctx.rowBytes, "rows", true) : nullptr;
  Buffer* side = m.allocUb(core, batch * placeSideBytes(ctx.topK), "side", false);
  std::vector<std::int32_t> next(plan.channelStart.size(), 0);
  auto place = [&](RingBuffer&, const std::vector<RecordMeta>& metas) -> Task {
    const auto n = static_cast<std::int64_t>(metas.size());
    if (rows) co_await unpackQuantizedRecords(ctx, core, rx, n, rows);
    for (std::int64_t i = 0; i < n; ++i)
      placeRow(ctx, core, d, metas[static_cast<std::size_t>(i)],
               rows ? Region{rows, i * ctx.rowBytes, ctx.rowBytes}
                    : Region{rx, i * rb + ctx.metaBytes, ctx.rowBytes},
               plan, next, side, static_cast<int>(i));
    co_await core.fence(Pipe::Mte3);  // rx and side are reused by the next batch
  };
  co_await pollRings(core, std::move(inputs), rx, batch, rb, place);
}

}  // namespace

namespace {

// Every ring of the streaming dispatch: per card, a direct IPC ring from each card of its
// server, and per other server and channel an RDMA ring and its forwarded IPC rings.
std::shared_ptr<StreamingRings> addDispatchRings(LayerContext& ctx) {
  Emulation& emu = ctx.emu;
  const RingTiling& t = ctx.sc.rings.dispatch;
  const int C = ctx.channels;
  const int channelChunks = dispatchChannelQueueChunks(ctx.sc);
  auto name = [](int card) { return "card" + std::to_string(card); };
  auto channelName = [C](int ch) { return C > 1 ? " ch" + std::to_string(ch) : std::string(); };
  auto shared = std::make_shared<StreamingRings>();
  StreamingRings& rings = *shared;
  const int cards = ctx.ranks;
  rings.direct.assign(cards, std::vector<RingBuffer*>(ctx.cardsPerServer, nullptr));
  rings.rdma.assign(cards,
                    std::vector<RingBuffer*>(static_cast<std::size_t>(ctx.servers) * C, nullptr));
  rings.fwd.assign(cards,
                   std::vector<std::vector<RingBuffer*>>(
                       ctx.cardsPerServer, std::vector<RingBuffer*>(ctx.servers * C, nullptr)));
  const IndexedLabels& directName = emu.addRingNames(
      [name](const IndexedLabels::Indices& i) { return name(i[0]) + " IPC <- " + name(i[1]); });
  const IndexedLabels& rdmaName =
      emu.addRingNames([name, channelName](const IndexedLabels::Indices& i) {
        return name(i[0]) + " RDMA <- " + name(i[1]) + channelName(i[2]);
      });
  const IndexedLabels& fwdName =
      emu.addRingNames([name, channelName](const IndexedLabels::Indices& i) {
        return name(i[0]) + " IPC <- " + name(i[1]) + " fwd from server" + std::to_string(i[2]) +
               channelName(i[3]);
      });
  for (int d = 0; d < cards; ++d)
    for (int l = 0; l < ctx.cardsPerServer; ++l) {
      const int s = ctx.serverOf(d) * ctx.cardsPerServer + l;
      rings.direct[d][l] =
          &emu.addRing(directName(d, s), RingKind::Ipc, d, s, t.chunkBytes, t.queueChunks);
    }
  for (int f = 0; f < cards; ++f)
    for (int S = 0; S < ctx.servers; ++S) {
      if (S == ctx.serverOf(f)) continue;
      const int s = S * ctx.cardsPerServer + ctx.localOf(f);
      for (int ch = 0; ch < C; ++ch) {
        rings.rdma[f][S * C + ch] =
            &emu.addRing(rdmaName(f, s, ch), RingKind::Rdma, f, s, t.chunkBytes, channelChunks);
        for (int l = 0; l < ctx.cardsPerServer; ++l) {
          const int d = ctx.serverOf(f) * ctx.cardsPerServer + l;
          rings.fwd[d][ctx.localOf(f)][S * C + ch] =
              &emu.addRing(fwdName(d, f, S, ch), RingKind::Ipc, d, f, t.chunkBytes, channelChunks);
        }
      }
    }

  for (const RingBuffer& r : emu.rings())
    ctx.commBufferBytes += r.capacity() + 2 * kControlLineBytes;

  return shared;
}

void launchSenders(LayerContext& ctx, int c, const StreamingRings& rings, Latch& done) {
  const RingTiling& t = ctx.sc.rings.dispatch;
  const int C = ctx.channels;
  // Senders: targets round-robin over the sender cores, the other servers' channels first:
  // a core works through its targets one after another, and an RDMA target (a channel of
  // the tokens bound for that server, over one NIC) is the longest, so it must not wait
  // behind a card's. Channel-major, starting at the next server: the first round of
  // targets reaches every server, and the cards of a cluster do not all begin with the
  // same one (which loaded some servers' NICs twice while others idled).
  std::vector<std::vector<SenderTarget>> perSender(t.senderCores);
  int next = 0;
  for (int ch = 0; ch < C; ++ch)
    for (int i = 1; i < ctx.servers; ++i) {
      const int S = (ctx.serverOf(c) + i) % ctx.servers;
      const int f = S * ctx.cardsPerServer + ctx.localOf(c);
      perSender[next++ % t.senderCores].push_back({rings.rdma[f][ctx.serverOf(c) * C + ch], true, S,
                                                   ctx.channelFirst(ch), ctx.channelFirst(ch + 1)});
    }
  for (int l = 0; l < ctx.cardsPerServer; ++l) {
    const int d = ctx.serverOf(c) * ctx.cardsPerServer + l;
    perSender[next++ % t.senderCores].push_back(
        {rings.direct[d][ctx.localOf(c)], false, d, 0, ctx.tokensPerRank});
  }
  for (int i = 0; i < t.senderCores; ++i) {
    if (perSender[i].empty()) continue;
    AiCore& core = ctx.m.aiv(c, i);
    for (auto& tg : perSender[i]) tg.ring->producerCore = core.id();
    done.add(1);
    ctx.emu.launch(core, Role::Sender, streamingSender(ctx, c, core, perSender[i]), &done);
  }
}

void launchForwarders(LayerContext& ctx, int c, const std::shared_ptr<StreamingRings>& shared,
                      Latch& done) {
  const RingTiling& t = ctx.sc.rings.dispatch;
  const int C = ctx.channels;
  StreamingRings& rings = *shared;
  // Forwarders: this card's RDMA rings (one per other server and channel) round-robin over
  // the forwarder cores; each feeds its own forwarded IPC ring on every card here.
  std::vector<std::vector<PolledRing>> perFwd(t.forwarderCores);
  int next = 0;
  for (int S = 0; S < ctx.servers; ++S)
    if (S != ctx.serverOf(c))
      for (int ch = 0; ch < C; ++ch) {
        RingBuffer* r = rings.rdma[c][S * C + ch];
        perFwd[next++ % t.forwarderCores].push_back({r, r->producerCard(), 0, ch});
      }
  for (int i = 0; i < t.forwarderCores; ++i) {
    if (perFwd[i].empty()) continue;
    AiCore& core = ctx.m.aiv(c, t.senderCores + i);
    for (auto& p : perFwd[i]) {
      p.ring->consumerCore = core.id();
      const int from = ctx.serverOf(p.source) * C + p.channel;
      for (int l = 0; l < ctx.cardsPerServer; ++l)
        rings.fwd[ctx.serverOf(c) * ctx.cardsPerServer + l][ctx.localOf(c)][from]->producerCore =
            core.id();
    }
    done.add(1);
    ctx.emu.launch(core, Role::Forwarder, streamingForwarder(ctx, c, core, perFwd[i], shared),
                   &done);
  }
}

void launchReceivers(LayerContext& ctx, int c, const StreamingRings& rings, Latch& done) {
  const RingTiling& t = ctx.sc.rings.dispatch;
  const int C = ctx.channels;
  // Receivers: direct and forwarded IPC rings round-robin over the receiver cores. A
  // forwarded ring carries one channel of the tokens of the source with the forwarder's
  // local index on the ring's origin server.
  std::vector<std::vector<PolledRing>> perRecv(t.receiverCores);
  int next = 0;
  for (int l = 0; l < ctx.cardsPerServer; ++l)
    perRecv[next++ % t.receiverCores].push_back(
        {rings.direct[c][l], rings.direct[c][l]->producerCard()});
  for (int l = 0; l < ctx.cardsPerServer; ++l)
    for (int S = 0; S < ctx.servers; ++S)
      for (int ch = 0; ch < C; ++ch)
        if (RingBuffer* r = rings.fwd[c][l][S * C + ch])
          perRecv[next++ % t.receiverCores].push_back({r, S * ctx.cardsPerServer + l, 0, ch});
  for (int i = 0; i < t.receiverCores; ++i) {
    if (perRecv[i].empty()) continue;
    AiCore& core = ctx.m.aiv(c, t.senderCores + t.forwarderCores + i);
    for (auto& p : perRecv[i]) p.ring->consumerCore = core.id();
    done.add(1);
    ctx.emu.launch(core, Role::Receiver, streamingReceiver(ctx, c, core, perRecv[i], i == 0),
                   &done);
  }
}

}  // namespace

void launchDispatchStreaming(LayerContext& ctx, Latch& done) {
  // The forwarders keep the ring table alive for as long as they run.
  const std::shared_ptr<StreamingRings> rings = addDispatchRings(ctx);
  for (int c = 0; c < ctx.ranks; ++c) {
    launchSenders(ctx, c, *rings, done);
    launchForwarders(ctx, c, rings, done);
    launchReceivers(ctx, c, *rings, done);
  }
}

}  // namespace moe
