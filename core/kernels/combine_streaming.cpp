// Streaming combine (seeds 000 and 004, SPEC §3.5b).
//
//   Sender (expert card d), per target (same-server card f, lane L):
//     walk the local experts in order; for each owner r of that target, the
//     Offset/Length tables give one contiguous block of expert outputs; gather its rows
//     into UB staging (over-read + crop), flush a chunk: waitSpace (lazy head cache) ->
//     write (split at the wrap) -> fence -> publish tail.
//   Forwarder (card f, lane L): polls its IPC rings; adds w * y into the token's fp32
//     partial (a GM accumulator workspace: contributions arrive expert-major, far apart);
//     when a token has all of this server's contributions, sends the fp32 partial to the
//     owner's partial ring: RDMA to another server, a local copy to its own card.
//   Receiver (owner card r, channel c): polls the partial rings of its token range, adds
//     the servers' partials (and the shared expert), rounds to bf16 once and writes XOut
//     (or, with AddRmsNorm, x_out, rstd and y).

#include <algorithm>
#include <memory>

#include "core/kernels/combine_common.h"
#include "core/kernels/kernels.h"
#include "core/kernels/ring_polling.h"
#include "core/plan/combine_plan.h"
#include "core/reference/combine_reference.h"
#include "core/reference/dispatch_reference.h"

namespace moe {

namespace {

struct CombineRings {
  std::vector<std::vector<RingBuffer*>> ipc;      // [f][dLocal * lanes + lane]
  std::vector<std::vector<RingBuffer*>> partial;  // [r][S * channels + c]
  CombinePlan plan;
};

struct SenderTarget {
  int f;
  int lane;
};

Task combineSender(LayerContext& ctx, int d, AiCore& core,
                   std::shared_ptr<const CombineRings> rings, std::vector<SenderTarget> targets) {
  Machine& m = ctx.m;
  CardTensors& g = ctx.cards[d];
  const CombinePlan& plan = rings->plan;
  const std::int64_t rb = ctx.recordBytes, chunk = ctx.sc.rings.chunkBytes;
  const std::int64_t perBatch = std::max<std::int64_t>(1, chunk / rb);
  Buffer* staging = m.allocUb(core, perBatch * rb, "staging", true);
  // Per row: (source rank, token, k) and its weight, read block by block.
  constexpr std::int64_t kIdxRows = 256;
  Buffer* idx = m.allocUb(core, kIdxRows * 12, "expand_idx", false);
  Buffer* scales = m.allocUb(core, kIdxRows * 4, "expand_scales", false);
  const auto* off = g.offsets->as<std::int32_t>();
  const auto* len = g.lengths->as<std::int32_t>();
  for (const SenderTarget& tg : targets) {
    RingBuffer& ring = *rings->ipc[tg.f][ctx.localOf(d) * plan.lanes + tg.lane];
    std::vector<RecordMeta> metas;
    auto flush = [&]() -> Task {
      if (metas.empty()) co_return;
      const std::int64_t bytes = static_cast<std::int64_t>(metas.size()) * rb;
      co_await core.fence(Pipe::Mte2);  // the gathered rows are in UB
      co_await ring.waitSpace(core, bytes);
      ring.writeFromUb(core, Region{staging, 0, bytes}, metas, rb);
      co_await core.fence(Pipe::Mte3);  // data lands before the tail says so
      ring.publishTail(core);
      metas.clear();
    };
    for (int le = 0; le < ctx.P; ++le)
      for (int S = 0; S < ctx.S; ++S) {
        const int r = S * ctx.cps + ctx.localOf(tg.f);  // an owner this target forwards for
        if (plan.lane(ctx, r) != tg.lane) continue;
        const std::int64_t begin = off[le * ctx.R + r], rows = len[le * ctx.R + r];
        for (std::int64_t b0 = 0; b0 < rows; b0 += kIdxRows) {
          const std::int64_t n = std::min(kIdxRows, rows - b0);
          core.copy(Region{idx, 0, n * 12}, Region{g.expandIdx, (begin + b0) * 12, n * 12});
          co_await core.copy(Region{scales, 0, n * 4},
                             Region{g.expandScales, (begin + b0) * 4, n * 4});
          for (std::int64_t i = 0; i < n; ++i) {
            if (static_cast<std::int64_t>(metas.size()) == perBatch) co_await flush();
            const std::int64_t row = begin + b0 + i;
            RecordMeta meta;
            meta.srcRank = idx->as<std::int32_t>()[i * 3];
            meta.token = idx->as<std::int32_t>()[i * 3 + 1];
            meta.k = 1;
            meta.weights[0] = scales->as<float>()[i];
            core.copy(Region{staging, static_cast<std::int64_t>(metas.size()) * rb + ctx.metaBytes,
                             ctx.rowBytes},
                      Region{g.expertOut, row * ctx.rowBytes, ctx.rowBytes});
            metas.push_back(meta);
          }
        }
      }
    co_await flush();
  }
  co_await core.fence(Pipe::Scalar);  // every tail write has landed
}

// Adds `w * y` (bf16 row in UB) into the fp32 partial of a token, whose running sum lives
// in a GM workspace row. Returns true when the partial is complete (then it is in `sum`).
struct Accumulator {
  Buffer* workspace;  // GM [rows * H] f32
  std::vector<std::int32_t> seen;
};

Task forwarderCore(LayerContext& ctx, int f, AiCore& core,
                   std::shared_ptr<const CombineRings> rings, int lane) {
  Machine& m = ctx.m;
  const CombinePlan& plan = rings->plan;
  const std::int64_t rb = ctx.recordBytes, pb = partialRecordBytes(ctx.sc);
  const int batch = static_cast<int>(std::max<std::int64_t>(1, ctx.sc.rings.chunkBytes / rb));
  Buffer* rx = m.allocUb(core, batch * rb, "rx", true);
  // The running fp32 sum lives inside the outgoing partial record, after its header.
  Buffer* out = m.allocUb(core, pb, "partial_out", true);
  const Region sum{out, ctx.metaBytes, ctx.H * 4LL};
  // One accumulator row per token of the owners this lane forwards for.
  std::vector<int> ownerSlot(ctx.S, -1);
  int owners = 0;
  for (int S = 0; S < ctx.S; ++S)
    if (plan.lane(ctx, S * ctx.cps + ctx.localOf(f)) == lane) ownerSlot[S] = owners++;
  Buffer* acc = m.allocGm(f, static_cast<std::int64_t>(owners) * ctx.BS * ctx.H * 4,
                          core.name() + ".combine-acc", true);
  Buffer* rdmaStage = m.allocGm(f, pb, core.name() + ".combine-rdma-stage", true);
  OpRef rdmaInFlight;
  std::vector<std::int32_t> seen(static_cast<std::size_t>(ctx.S) * ctx.BS, 0);
  const auto& expected = plan.fwdCount[f];
  std::vector<PolledRing> inputs;
  for (int dl = 0; dl < ctx.cps; ++dl) {
    RingBuffer* r = rings->ipc[f][dl * plan.lanes + lane];
    inputs.push_back({r, dl, plan.fwdRows[f][dl * plan.lanes + lane]});
  }
  auto reduce = [&](RingBuffer&, const std::vector<RecordMeta>& metas) -> Task {
    for (std::size_t i = 0; i < metas.size(); ++i) {
      const RecordMeta& meta = metas[i];
      const std::size_t slot =
          static_cast<std::size_t>(ctx.serverOf(meta.srcRank)) * ctx.BS + meta.token;
      const std::int64_t accIndex =
          static_cast<std::int64_t>(ownerSlot[ctx.serverOf(meta.srcRank)]) * ctx.BS + meta.token;
      const Region accRow{acc, accIndex * ctx.H * 4, ctx.H * 4LL};
      const bool first = seen[slot] == 0;
      const bool last = ++seen[slot] == expected[slot];
      if (!first) co_await core.copy(sum, accRow);  // running sum from the workspace
      co_await core.vector(ctx.H, 4);               // sum += w * y, in fp32
      if (!out->bytes.empty()) {
        const auto* y = rx->as<bf16>() + (static_cast<std::int64_t>(i) * rb + ctx.metaBytes) / 2;
        auto* s = reinterpret_cast<float*>(sum.ptr());
        const float w = meta.weights[0];
        for (int h = 0; h < ctx.H; ++h) s[h] = (first ? 0.0f : s[h]) + w * bf16ToFloat(y[h]);
      }
      if (!last) {
        co_await core.copy(accRow, sum);  // back to the workspace, landed before reuse
        continue;
      }
      // Complete: this server's partial of (owner, token) goes to the owner's receiver.
      const int owner = meta.srcRank;
      RingBuffer& dst =
          *rings->partial[owner][static_cast<std::size_t>(ctx.serverOf(f)) * plan.channels +
                                 plan.channel(ctx, meta.token)];
      RecordMeta p;
      p.srcRank = owner;
      p.token = meta.token;
      p.contributions = expected[slot];
      co_await dst.waitSpace(core, pb);
      if (owner == f) {  // the owner is this card: a local copy, no NIC
        dst.writeFromUb(core, whole(out), {p}, pb);
        co_await core.fence(Pipe::Mte3);
        dst.publishTail(core);
      } else {  // another server: stage in GM, one RDMA post, tail ordered behind it
        if (!rdmaInFlight.done()) co_await rdmaInFlight;
        co_await core.copy(whole(rdmaStage), whole(out));
        rdmaInFlight = dst.writeByRdma(core, whole(rdmaStage), {p}, pb);
        dst.publishTail(core, rdmaInFlight);
      }
    }
  };
  co_await pollRings(core, std::move(inputs), rx, batch, rb, reduce);
  co_await core.fence(Pipe::Scalar);
}

Task receiverCore(LayerContext& ctx, int r, AiCore& core, std::shared_ptr<const CombineRings> rings,
                  std::vector<int> channels) {
  Machine& m = ctx.m;
  const CombinePlan& plan = rings->plan;
  const std::int64_t pb = partialRecordBytes(ctx.sc);
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
                          core.name() + ".combine-acc", true);
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
      const auto* p = reinterpret_cast<const float*>(rx->data() + ctx.metaBytes);
      auto* s = sum->as<float>();
      for (int h = 0; h < ctx.H; ++h) s[h] = (first ? 0.0f : s[h]) + p[h];
    }
    if (last)
      co_await finish(t);
    else
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
    // Senders: targets (card, lane) round-robin over the sender cores.
    std::vector<std::vector<SenderTarget>> perSender(t.senderCores);
    int next = 0;
    for (int fl = 0; fl < ctx.cps; ++fl)
      for (int L = 0; L < plan.lanes; ++L)
        perSender[next++ % t.senderCores].push_back({ctx.serverOf(c) * ctx.cps + fl, L});
    for (int i = 0; i < t.senderCores; ++i) {
      if (perSender[i].empty()) continue;
      AiCore& core = ctx.m.aiv(c, i);
      for (const auto& tg : perSender[i])
        rings->ipc[tg.f][ctx.localOf(c) * plan.lanes + tg.lane]->producerCore = core.id();
      done.add(1);
      emu.launch(core, Role::Sender, combineSender(ctx, c, core, rings, perSender[i]), &done);
    }
    // Forwarders: one core per lane.
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
        if (plan.lane(ctx, owner) != L) continue;
        for (int ch = 0; ch < plan.channels; ++ch)
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
