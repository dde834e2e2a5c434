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
//
// The sender and forwarder roles are in combine_streaming_sender.cpp and
// combine_streaming_forwarder.cpp; the receiver and the launcher are here.

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

namespace moe {

namespace {

using streaming_combine::CombineRings;
using streaming_combine::combineSender;
using streaming_combine::forwarderCore;
using streaming_combine::SenderTarget;

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
  std::vector<int> accIndex(ctx.tokensPerRank, -1);
  int owned = 0;
  for (int t = 0; t < ctx.tokensPerRank; ++t)
    if (std::find(channels.begin(), channels.end(), plan.channel(ctx, t)) != channels.end())
      accIndex[t] = owned++;
  Buffer* acc = m.allocGm(r, static_cast<std::int64_t>(owned) * ctx.hidden * 4,
                          core.name() + ".combine-acc", true, /*sparse=*/true);  // row by row
  std::vector<std::int32_t> seen(ctx.tokensPerRank, 0);
  const auto& servers = plan.recvServers[r];
  auto finish = [&](int t) { return finisher.finish(t); };

  std::vector<PolledRing> inputs;
  for (int c : channels)
    for (int S = 0; S < ctx.servers; ++S)
      inputs.push_back({rings->partial[r][static_cast<std::size_t>(S) * plan.channels + c], S,
                        plan.recvRecords[r][static_cast<std::size_t>(S) * plan.channels + c]});
  // Tokens no expert kept (fully pruned) still get a row: zero, or the shared expert.
  for (int c : channels)
    for (int t = 0; t < ctx.tokensPerRank; ++t)
      if (plan.channel(ctx, t) == c && servers[t] == 0) {
        if (!sum->bytes.empty()) std::fill_n(sum->as<float>(), ctx.hidden, 0.0f);
        co_await finish(t);
      }
  auto reduce = [&](RingBuffer&, const std::vector<RecordMeta>& metas) -> Task {
    const RecordMeta& meta = metas.front();  // batch of one: partials are large
    const int t = meta.token;
    const Region accRow{acc, static_cast<std::int64_t>(accIndex[t]) * ctx.hidden * 4,
                        ctx.hidden * 4LL};
    const bool first = seen[t] == 0;
    const bool last = ++seen[t] == servers[t];
    if (!first) co_await core.copy(whole(sum), accRow);
    co_await core.vector(ctx.hidden, 4);
    if (!sum->bytes.empty()) {
      auto* s = sum->as<float>();
      if (bf16Wire) {
        const auto* p = reinterpret_cast<const bf16*>(rx->data() + ctx.metaBytes);
        for (int h = 0; h < ctx.hidden; ++h) s[h] = (first ? 0.0f : s[h]) + bf16ToFloat(p[h]);
      } else {
        const auto* p = reinterpret_cast<const float*>(rx->data() + ctx.metaBytes);
        for (int h = 0; h < ctx.hidden; ++h) s[h] = (first ? 0.0f : s[h]) + p[h];
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

// Every ring of the streaming combine: per card, an IPC ring from each card of its server
// per lane, and a partial ring (local or RDMA) from each server per channel.
std::shared_ptr<CombineRings> addCombineRings(LayerContext& ctx) {
  Emulation& emu = ctx.emu;
  const RingTiling& t = ctx.sc.rings.combine;
  auto rings = std::make_shared<CombineRings>();
  rings->plan = buildCombinePlan(ctx);
  const CombinePlan& plan = rings->plan;
  rings->sendersLeft.assign(ctx.ranks, 0);
  auto name = [](int card) { return "card" + std::to_string(card); };
  rings->ipc.assign(
      ctx.ranks,
      std::vector<RingBuffer*>(static_cast<std::size_t>(ctx.cardsPerServer) * plan.lanes, nullptr));
  rings->partial.assign(
      ctx.ranks,
      std::vector<RingBuffer*>(static_cast<std::size_t>(ctx.servers) * plan.channels, nullptr));
  const std::size_t firstRing = emu.rings().size();
  const IndexedLabels& ipcName = emu.addRingNames([name](const IndexedLabels::Indices& i) {
    return name(i[0]) + " combine IPC <- " + name(i[1]) + " lane" + std::to_string(i[2]);
  });
  const IndexedLabels& partialName = emu.addRingNames([name](const IndexedLabels::Indices& i) {
    return name(i[0]) + (i[1] == i[0] ? " combine local <- " : " combine RDMA <- ") + name(i[1]) +
           " ch" + std::to_string(i[2]);
  });
  for (int f = 0; f < ctx.ranks; ++f)
    for (int dl = 0; dl < ctx.cardsPerServer; ++dl)
      for (int L = 0; L < plan.lanes; ++L) {
        const int d = ctx.serverOf(f) * ctx.cardsPerServer + dl;
        rings->ipc[f][dl * plan.lanes + L] =
            &emu.addRing(ipcName(f, d, L), RingKind::Ipc, f, d, t.chunkBytes, t.queueChunks);
      }
  for (int r = 0; r < ctx.ranks; ++r)
    for (int S = 0; S < ctx.servers; ++S)
      for (int c = 0; c < plan.channels; ++c) {
        const int f = S * ctx.cardsPerServer + ctx.localOf(r);
        rings->partial[r][static_cast<std::size_t>(S) * plan.channels + c] =
            &emu.addRing(partialName(r, f, c), f == r ? RingKind::Ipc : RingKind::Rdma, r, f,
                         t.chunkBytes, t.queueChunks);
      }
  for (std::size_t i = firstRing; i < emu.rings().size(); ++i)
    ctx.combineBufferBytes += emu.rings()[i].capacity() + 2 * kControlLineBytes;
  return rings;
}

void launchSenders(LayerContext& ctx, int c, const std::shared_ptr<CombineRings>& rings,
                   Latch& done) {
  const RingTiling& t = ctx.sc.rings.combine;
  const CombinePlan& plan = rings->plan;
  // Senders: targets (card, lane) round-robin over the sender cores, in the plan's diagonal
  // order (senderTargetOrder says why: every forwarder is fed all through the stage).
  std::vector<std::vector<SenderTarget>> perSender(t.senderCores);
  int next = 0;
  for (const SenderTargetSlot& slot :
       senderTargetOrder(ctx.cardsPerServer, plan.lanes, ctx.localOf(c))) {
    const int f = ctx.serverOf(c) * ctx.cardsPerServer + slot.localCard;
    if (plan.fwdRows[f][ctx.localOf(c) * plan.lanes + slot.lane] == 0) continue;  // nothing
    perSender[next++ % t.senderCores].push_back({f, slot.lane});
  }
  for (int i = 0; i < t.senderCores; ++i) {
    if (perSender[i].empty()) continue;
    AiCore& core = ctx.m.aiv(c, i);
    for (const auto& tg : perSender[i])
      rings->ipc[tg.f][ctx.localOf(c) * plan.lanes + tg.lane]->producerCore = core.id();
    done.add(1);
    ++rings->sendersLeft[c];
    ctx.emu.launch(core, Role::Sender, combineSender(ctx, c, core, rings, perSender[i]), &done);
  }
}

void launchForwarders(LayerContext& ctx, int c, const std::shared_ptr<CombineRings>& rings,
                      Latch& done) {
  const RingTiling& t = ctx.sc.rings.combine;
  const CombinePlan& plan = rings->plan;
  // Forwarders: one core per lane (a set of (destination server, channel) pairs).
  for (int L = 0; L < plan.lanes; ++L) {
    AiCore& core = ctx.m.aiv(c, t.senderCores + L);
    if (ctx.fault == Fault::StallCore && c == 0 && L == 0) {  // injected: this core hangs
      done.add(1);
      ctx.emu.launch(core, Role::Forwarder, stalledCore(ctx, core), &done);
      continue;
    }
    for (int dl = 0; dl < ctx.cardsPerServer; ++dl)
      rings->ipc[c][dl * plan.lanes + L]->consumerCore = core.id();
    for (int S = 0; S < ctx.servers; ++S) {
      const int owner = S * ctx.cardsPerServer + ctx.localOf(c);
      for (int ch = 0; ch < plan.channels; ++ch)
        if (plan.laneOf(S, ch) == L)
          rings->partial[owner][static_cast<std::size_t>(ctx.serverOf(c)) * plan.channels + ch]
              ->producerCore = core.id();
    }
    done.add(1);
    ctx.emu.launch(core, Role::Forwarder, forwarderCore(ctx, c, core, rings, L), &done);
  }
}

void launchReceivers(LayerContext& ctx, int c, const std::shared_ptr<CombineRings>& rings,
                     Latch& done) {
  const RingTiling& t = ctx.sc.rings.combine;
  const CombinePlan& plan = rings->plan;
  // Receivers: channels round-robin over the receiver cores.
  std::vector<std::vector<int>> perRecv(t.receiverCores);
  for (int ch = 0; ch < plan.channels; ++ch) perRecv[ch % t.receiverCores].push_back(ch);
  for (int i = 0; i < t.receiverCores; ++i) {
    if (perRecv[i].empty()) continue;
    AiCore& core = ctx.m.aiv(c, t.senderCores + t.forwarderCores + i);
    for (int ch : perRecv[i])
      for (int S = 0; S < ctx.servers; ++S)
        rings->partial[c][static_cast<std::size_t>(S) * plan.channels + ch]->consumerCore =
            core.id();
    done.add(1);
    ctx.emu.launch(core, Role::Receiver, receiverCore(ctx, c, core, rings, perRecv[i]), &done);
  }
}

}  // namespace

void launchCombineStreaming(LayerContext& ctx, Latch& done) {
  const std::shared_ptr<CombineRings> rings = addCombineRings(ctx);
  const CombinePlan& plan = rings->plan;
  if (ctx.fault == Fault::DropTail) {
    // The busiest IPC ring into card 0 loses its last tail publish: its forwarder waits
    // for data that is there but never announced.
    int best = 0;
    for (int i = 1; i < ctx.cardsPerServer * plan.lanes; ++i)
      if (plan.fwdRows[0][i] > plan.fwdRows[0][best]) best = i;
    rings->ipc[0][best]->dropPublishOfTail(plan.fwdRows[0][best] * ctx.recordBytes);
  }

  for (int c = 0; c < ctx.ranks; ++c) {
    launchSenders(ctx, c, rings, done);
    launchForwarders(ctx, c, rings, done);
    launchReceivers(ctx, c, rings, done);
  }
}

}  // namespace moe
