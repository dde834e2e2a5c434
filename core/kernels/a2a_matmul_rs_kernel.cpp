// The AlltoAll-Matmul-ReduceScatter kernels. Per rank j (card j):
//
//   Unit u (0 <= u < r * M/r/tile_m) is tile_m rows of A'_j: source s = (j + u / nb) % r,
//   block b = u % nb. The rotation by j makes every source feed a different destination at
//   the same step, so all links work at once, and unit 0 is the local one (no wait).
//   Output tile g = u * nT + n (column tile n) runs on AIC core g % A; a partial tile of
//   unit u belongs to owner s, because its rows are s's rows.
//
//   A2A pushers (AIV, on source s): unit u for destination j = (s - u/nb) mod r, in
//     increasing u. Wait until slot u % STAGES of j is free (every AIC that read the
//     previous occupant has said so), gather tile_m x tile_k chunks of A_s into UB, write
//     them into j's slot (HCCS copy, or staging + RDMA across servers), then set the slot's
//     full word to u + 1, ordered behind the data.
//   AIC cores: for each tile, wait for the slot's full word, stream A and packed-W chunks
//     into L1 (double-buffered), cube 2 m n k FLOPs per chunk with fp32 accumulation, say
//     "slot read" after the core's last tile of the unit, then write the fp32 tile into
//     one of STAGES local partial slots (waiting for it to be free) and set its full word.
//   RS senders (AIV): take each partial tile as it is written, free the slot, push it into
//     the owner's reduce-scatter buffer and set the owner's per-tile flag.
//   Reducers (AIV, on owner s): per output tile, wait for the r partials in arrival order
//     (source s first), add them in fp32 in UB, round to fp16, write the output rows.
//
// The reduce-scatter buffer is full size (r x M/r x N fp32 per owner) so a sender never
// waits on another rank: with bounded slots there, sources that reach an owner at
// different steps could wait on each other in a cycle. Units are processed in the same
// increasing order everywhere, which is what makes the bounded a2a slots deadlock-free.

#include "core/kernels/a2a_matmul_rs_kernel.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/runtime/emulation.h"

namespace moe {

namespace {
struct CardState {
  Buffer* a = nullptr;                           // A_j [M/r, K] fp16
  Buffer* w = nullptr;                           // packed W_j [nT][K/r][tile_n] fp16
  Buffer* out = nullptr;                         // O_j [M/r, N] fp16
  Buffer* a2aWs = nullptr;                       // slots x [K/r / tile_k][tile_m][tile_k] fp16
  Buffer* partial = nullptr;                     // A cores x partial slots x [tile_m][tile_n] fp32
  Buffer* rsWs = nullptr;                        // [source][block][n tile][tile_m][tile_n] fp32
  std::vector<Word*> a2aFull;                    // [slot]
  std::vector<std::vector<Word*>> a2aFree;       // [slot][aic]
  std::vector<std::vector<Word*>> pFull, pFree;  // [aic][partial slot]
  std::vector<Word*> rsFlag;                     // [source][block][n tile]
  WorkspaceStages* a2aStages = nullptr;          // slots
  std::vector<WorkspaceStages*> partialStages;   // [aic], partial slots each
  WorkspaceStages* rsStages = nullptr;           // one slot per partial tile
};
}  // namespace

struct A2aMatmulContext::Impl {
  Emulation& emu;
  Machine& m;
  A2aMatmulShape s;
  bool pipelined;
  int R, mr, kr, nb, U, nT, nk, tm, tn, tk;
  int A;  // AIC cores used per card
  int pushers, senders, reducers;
  int slots;   // a2a slots per card
  int pslots;  // partial slots per AIC
  std::vector<CardState> cards;

  Impl(Emulation& e, const A2aMatmulShape& sh, bool pipe)
      : emu(e),
        m(e.machine()),
        s(sh),
        pipelined(pipe),
        R(sh.ranks),
        mr(sh.rowsPerRank()),
        kr(sh.kPerRank()),
        nb(sh.blocksPerRank()),
        U(sh.units()),
        nT(sh.nTiles()),
        nk(sh.kChunks()),
        tm(sh.tileM),
        tn(sh.tileN),
        tk(sh.tileK) {
    const HardwareProfile& hw = m.hw();
    A = std::min(hw.aicCores, U * nT);
    pushers = std::max(1, std::min(8, hw.aivCores / 4));
    senders = std::max(1, std::min(A, (hw.aivCores - pushers) / 2));
    reducers = std::max(1, hw.aivCores - pushers - senders);
    const int tilesPerCore = (U * nT + A - 1) / A;
    slots = pipelined ? std::min(s.stages, U) : U;
    pslots = pipelined ? std::min(s.stages, tilesPerCore) : tilesPerCore;
  }

  std::int64_t unitBytes() const { return std::int64_t{tm} * kr * 2; }
  std::int64_t chunkBytes() const { return std::int64_t{tm} * tk * 2; }
  std::int64_t tileBytes() const { return std::int64_t{tm} * tn * 4; }
  bool sameServer(int a, int b) const { return m.serverOf(a) == m.serverOf(b); }

  std::int64_t workspaceBytes() const {
    return slots * unitBytes() + std::int64_t{A} * pslots * tileBytes() +
           std::int64_t{R} * nb * nT * tileBytes();
  }

  void allocate(const A2aMatmulInputs& in) {
    for (int j = 0; j < R; ++j) {
      CardState c;
      const std::string p = "a2amm.";
      c.a = m.allocGm(j, std::int64_t{mr} * s.k * 2, p + "a", true);
      const auto packed = packWeights(s, in.w[j]);
      c.w = m.allocGm(j, static_cast<std::int64_t>(packed.size()) * 2, p + "w_packed", true);
      c.out = m.allocGm(j, std::int64_t{mr} * s.n * 2, p + "out", true);
      c.a2aWs = m.allocGm(j, slots * unitBytes(), p + "a2a_workspace", true);
      c.partial = m.allocGm(j, std::int64_t{A} * pslots * tileBytes(), p + "partial_slots", true);
      c.rsWs =
          m.allocGm(j, std::int64_t{R} * nb * nT * tileBytes(), p + "rs_workspace", true, true);
      std::memcpy(c.a->data(), in.a[j].data(), in.a[j].size() * 2);
      std::memcpy(c.w->data(), packed.data(), packed.size() * 2);
      const std::string card = "card " + std::to_string(j) + " ";
      for (int sl = 0; sl < slots; ++sl) {
        c.a2aFull.push_back(m.makeWord(j, card + "a2a slot " + std::to_string(sl) + " full"));
        c.a2aFree.emplace_back();
        for (int a = 0; a < A; ++a)
          c.a2aFree.back().push_back(m.makeWord(
              j, card + "a2a slot " + std::to_string(sl) + " read by aic " + std::to_string(a)));
      }
      c.pFull.resize(A);
      c.pFree.resize(A);
      for (int a = 0; a < A; ++a)
        for (int ps = 0; ps < pslots; ++ps) {
          const std::string n =
              card + "aic " + std::to_string(a) + " partial slot " + std::to_string(ps);
          c.pFull[a].push_back(m.makeWord(j, n + " full"));
          c.pFree[a].push_back(m.makeWord(j, n + " free"));
        }
      for (int src = 0; src < R; ++src)
        for (int t = 0; t < nb * nT; ++t)
          c.rsFlag.push_back(m.makeWord(
              j, card + "rs tile " + std::to_string(t) + " from " + std::to_string(src)));
      c.a2aStages =
          &emu.addWorkspaceStages(card + "a2a input stages", "a2a input", j, slots, unitBytes());
      c.rsStages = &emu.addWorkspaceStages(card + "reduce-scatter buffer", "reduce-scatter buffer",
                                           j, R * nb * nT, tileBytes());
      for (int a = 0; a < A; ++a)
        c.partialStages.push_back(
            &emu.addWorkspaceStages(card + "aic " + std::to_string(a) + " partial sums",
                                    "partial sums", j, pslots, tileBytes()));
      cards.push_back(std::move(c));
    }
  }

  // Suspends until `w` >= v (monotone words only), never spinning the host.
  static Task waitAtLeast(AiCore& core, Word& w, std::int64_t v) {
    while (w.value < v) {
      auto change = core.changeOf(w, w.value, Activity::WaitData,
                                  [&w, v] { return w.name.str() + " >= " + std::to_string(v); });
      co_await change;
    }
  }

  // Writes UB bytes into a GM region of card `dst` and sets `flag` to `value` once they
  // have landed: HCCS copy + fence + scalar write inside a server; staging + RDMA with
  // the flag ordered behind it across servers. Returns when UB may be reused.
  Task publish(AiCore& core, Region dst, Region ub, Buffer* staging, Word* flag,
               std::int64_t value) {
    if (sameServer(core.card(), dst.buf->card)) {
      core.copy(dst, ub);
      co_await core.fence(Pipe::Mte3);
      if (flag) co_await core.writeWord(*flag, value);
    } else {
      const Region st{staging, 0, ub.length};
      core.copy(st, ub);
      co_await core.fence(Pipe::Mte3);
      const OpRef data = core.rdmaWrite(dst, st);
      if (flag) core.rdmaWriteWord(*flag, value, data);
      co_await data;  // the staging buffer is free again
    }
  }

  Task pusher(int src, int p, AiCore& core) {
    CardState& mine = cards[src];
    Buffer* ub[2] = {m.allocUb(core, chunkBytes(), "a2a0", true),
                     m.allocUb(core, chunkBytes(), "a2a1", true)};
    Buffer* staging = m.allocGm(src, chunkBytes(), core.name() + ".a2a-stage", true);
    for (int u = p; u < U; u += pushers) {
      const int t = u / nb, b = u % nb, j = (src - t + R) % R, slot = u % slots;
      CardState& dst = cards[j];
      if (u >= slots) {  // the previous occupant must have been read by every AIC using it
        const int prev = u - slots;
        for (int n = 0; n < nT; ++n)
          co_await waitAtLeast(core, *dst.a2aFree[slot][(prev * nT + n) % A], prev + 1);
      }
      dst.a2aStages->claim(slot, u, nT, dst.a2aFull[slot],
                           u + 1);  // every output tile of u reads it
      for (int kc = 0; kc < nk; ++kc) {
        Buffer* buf = ub[kc % 2];
        OpRef last;
        for (int i = 0; i < tm; ++i) {
          const std::int64_t srcOff =
              (std::int64_t{b * tm + i} * s.k + std::int64_t{j} * kr + std::int64_t{kc} * tk) * 2;
          last = core.copy(Region{buf, std::int64_t{i} * tk * 2, std::int64_t{tk} * 2},
                           Region{mine.a, srcOff, std::int64_t{tk} * 2});
        }
        co_await last;
        const Region to{dst.a2aWs, slot * unitBytes() + kc * chunkBytes(), chunkBytes()};
        const bool lastChunk = kc + 1 == nk;
        co_await publish(core, to, Region{buf, 0, chunkBytes()}, staging,
                         lastChunk ? dst.a2aFull[slot] : nullptr, u + 1);
      }
    }
    co_await core.fence(Pipe::Scalar);
  }

  Task aic(int j, int c, AiCore& core) {
    CardState& me = cards[j];
    Buffer* aBuf[2] = {m.allocUb(core, chunkBytes(), "a0", true),
                       m.allocUb(core, chunkBytes(), "a1", true)};
    const std::int64_t wBytes = std::int64_t{tk} * tn * 2;
    Buffer* wBuf[2] = {m.allocUb(core, wBytes, "w0", true), m.allocUb(core, wBytes, "w1", true)};
    Buffer* acc = m.allocUb(core, tileBytes(), "acc", true);
    std::vector<float> wf(static_cast<std::size_t>(tk) * tn);
    int q = 0;
    for (int g = c; g < U * nT; g += A, ++q) {
      const int u = g / nT, n = g % nT, slot = u % slots, width = s.tileWidth(n);
      co_await waitAtLeast(core, *me.a2aFull[slot], u + 1);
      me.a2aStages->beginRead(slot);
      auto load = [&](int kc) {
        core.copy(whole(aBuf[kc % 2]),
                  Region{me.a2aWs, slot * unitBytes() + kc * chunkBytes(), chunkBytes()});
        return core.copy(
            whole(wBuf[kc % 2]),
            Region{me.w, (std::int64_t{n} * kr + std::int64_t{kc} * tk) * tn * 2, wBytes});
      };
      float* out = acc->as<float>();
      std::fill(out, out + std::int64_t{tm} * tn, 0.0f);
      OpRef loaded = load(0);
      for (int kc = 0; kc < nk; ++kc) {
        co_await loaded;
        const int cur = kc % 2;
        if (kc + 1 < nk) loaded = load(kc + 1);  // double buffering: next chunk streams in
        const OpRef cube = core.cube(2.0 * tm * width * tk);
        // The cube's result, computed now from the chunk it read (fp32 accumulation).
        const fp16* a = aBuf[cur]->as<fp16>();
        const fp16* w = wBuf[cur]->as<fp16>();
        for (std::size_t e = 0; e < wf.size(); ++e) wf[e] = fp16ToFloat(w[e]);
        for (int i = 0; i < tm; ++i)
          for (int kk = 0; kk < tk; ++kk) {
            const float av = fp16ToFloat(a[i * tk + kk]);
            const float* wr = &wf[static_cast<std::size_t>(kk) * tn];
            float* o = out + std::int64_t{i} * tn;
            for (int col = 0; col < width; ++col) o[col] += av * wr[col];
          }
        co_await cube;
      }
      me.a2aStages->endRead(slot);
      // The last tile of this unit on this core: the slot may be refilled as far as we care.
      if (g + A >= U * nT || (g + A) / nT != u)
        co_await core.writeWord(*me.a2aFree[slot][c], u + 1);
      const int ps = q % pslots;
      if (q >= pslots) co_await waitAtLeast(core, *me.pFree[c][ps], q - pslots + 1);
      me.partialStages[static_cast<std::size_t>(c)]->claim(ps, g, 1, me.pFull[c][ps], q + 1);
      core.copy(Region{me.partial, (std::int64_t{c} * pslots + ps) * tileBytes(), tileBytes()},
                whole(acc));
      co_await core.fence(Pipe::Mte3);
      co_await core.writeWord(*me.pFull[c][ps], q + 1);
    }
    co_await core.fence(Pipe::Scalar);
  }

  Task sender(int j, int d, AiCore& core) {
    CardState& me = cards[j];
    Buffer* ub = m.allocUb(core, tileBytes(), "partial", true);
    Buffer* staging = m.allocGm(j, tileBytes(), core.name() + ".rs-stage", true);
    for (int g = 0; g < U * nT; ++g) {
      const int c = g % A;
      if (c % senders != d) continue;
      const int q = g / A, ps = q % pslots;
      co_await waitAtLeast(core, *me.pFull[c][ps], q + 1);
      WorkspaceStages& partial = *me.partialStages[static_cast<std::size_t>(c)];
      partial.beginRead(ps);
      co_await core.copy(
          whole(ub),
          Region{me.partial, (std::int64_t{c} * pslots + ps) * tileBytes(), tileBytes()});
      partial.endRead(ps);
      core.writeWord(*me.pFree[c][ps], q + 1);  // the tile is in UB: the AIC may reuse the slot
      const int u = g / nT, n = g % nT, owner = (j + u / nb) % R, b = u % nb;
      const int tile = (j * nb + b) * nT + n;
      cards[owner].rsStages->claim(tile, j, 1, cards[owner].rsFlag[tile], 1);
      co_await publish(core, Region{cards[owner].rsWs, tile * tileBytes(), tileBytes()}, whole(ub),
                       staging, cards[owner].rsFlag[tile], 1);
    }
    co_await core.fence(Pipe::Scalar);
  }

  Task reducer(int owner, int e, AiCore& core) {
    CardState& me = cards[owner];
    Buffer* acc = m.allocUb(core, tileBytes(), "acc", true);
    Buffer* in = m.allocUb(core, tileBytes(), "in", true);
    const std::int64_t outStride = (std::int64_t{tn} * 2 + 31) / 32 * 32;  // UB rows 32-B aligned
    Buffer* out = m.allocUb(core, tm * outStride, "out", true);
    for (int o = e; o < nb * nT; o += reducers) {
      const int b = o / nT, n = o % nT, width = s.tileWidth(n);
      for (int t = 0; t < R; ++t) {  // arrival order: source owner first, then owner-1, ...
        const int src = (owner - t + R) % R, tile = (src * nb + b) * nT + n;
        co_await waitAtLeast(core, *me.rsFlag[tile], 1);
        me.rsStages->beginRead(tile);
        co_await core.copy(whole(t == 0 ? acc : in),
                           Region{me.rsWs, tile * tileBytes(), tileBytes()});
        me.rsStages->endRead(tile);
        if (t == 0) continue;
        co_await core.vector(std::int64_t{tm} * width, 4);
        float* x = acc->as<float>();
        const float* y = in->as<float>();
        for (std::int64_t i = 0; i < std::int64_t{tm} * tn; ++i) x[i] += y[i];
      }
      co_await core.vector(std::int64_t{tm} * width, 4);  // fp32 -> fp16
      const float* x = acc->as<float>();
      for (int i = 0; i < tm; ++i) {
        auto* row = reinterpret_cast<fp16*>(out->data() + i * outStride);
        for (int col = 0; col < width; ++col) row[col] = floatToFp16(x[i * tn + col]);
      }
      for (int i = 0; i < tm; ++i)
        core.copy(Region{me.out, (std::int64_t{b * tm + i} * s.n + std::int64_t{n} * tn) * 2,
                         std::int64_t{width} * 2},
                  Region{out, i * outStride, std::int64_t{width} * 2});
      co_await core.fence(Pipe::Mte3);
    }
  }

  // --- launching ---
  enum Phase { kA2a = 1, kMatmul = 2, kRs = 4 };

  // Launches the programs of `phases` on every card; in the sequential kernel each phase's
  // programs end with a SyncAll on `barrier` (the baseline's barrier between phases).
  // A free function, not a capturing lambda: the coroutine outlives the lambda object.
  static Task withBarrier(AiCore& core, Task body, SyncBarrier* barrier) {
    co_await body;
    if (barrier) co_await core.syncAll(*barrier);
  }

  void launch(int phases, Latch& latch, SyncBarrier* barrier) {
    auto wrap = [barrier](AiCore& core, Task body) {
      return withBarrier(core, std::move(body), barrier);
    };
    for (int j = 0; j < R; ++j) {
      int aiv = 0;
      if (phases & kA2a)
        for (int p = 0; p < pushers; ++p) {
          AiCore& core = m.aiv(j, aiv + p);
          emu.launch(core, Role::A2A, wrap(core, pusher(j, p, core)), &latch);
        }
      aiv += pushers;
      if (phases & kMatmul)
        for (int c = 0; c < A; ++c) {
          AiCore& core = m.aic(j, c);
          emu.launch(core, Role::Gemm, wrap(core, aic(j, c, core)), &latch);
        }
      if (phases & kRs) {
        for (int d = 0; d < senders; ++d) {
          AiCore& core = m.aiv(j, aiv + d);
          emu.launch(core, Role::ReduceScatter, wrap(core, sender(j, d, core)), &latch);
        }
        for (int e = 0; e < reducers; ++e) {
          AiCore& core = m.aiv(j, aiv + senders + e);
          emu.launch(core, Role::ReduceScatter, wrap(core, reducer(j, e, core)), &latch);
        }
      }
    }
  }

  int programsIn(int phases) const {
    return R * (((phases & kA2a) ? pushers : 0) + ((phases & kMatmul) ? A : 0) +
                ((phases & kRs) ? senders + reducers : 0));
  }

  // One phase of the kernel: its programs on every card, counted on the latch before any
  // can finish; with a SyncAll at the end of each program when `barrier` names one.
  void launchPhase(int phases, Latch& latch, const char* barrier) {
    SyncBarrier* b = barrier ? &emu.addBarrier(barrier, programsIn(phases)) : nullptr;
    latch.add(programsIn(phases));
    launch(phases, latch, b);
  }
};

A2aMatmulContext::A2aMatmulContext(Emulation& emu, const A2aMatmulInputs& in, bool pipelined)
    : impl_(std::make_unique<Impl>(emu, in.shape, pipelined)) {
  impl_->allocate(in);
}

A2aMatmulContext::~A2aMatmulContext() = default;

bool A2aMatmulContext::pipelined() const {
  return impl_->pipelined;
}
std::int64_t A2aMatmulContext::workspaceBytes() const {
  return impl_->workspaceBytes();
}

std::vector<std::vector<fp16>> A2aMatmulContext::outputs() const {
  std::vector<std::vector<fp16>> out;
  for (const CardState& c : impl_->cards) {
    std::vector<fp16> v(static_cast<std::size_t>(c.out->size / 2));
    std::memcpy(v.data(), c.out->data(), v.size() * 2);
    out.push_back(std::move(v));
  }
  return out;
}

void launchA2aMatmulPipelined(A2aMatmulContext& ctx, Latch& done) {
  using Impl = A2aMatmulContext::Impl;
  ctx.impl_->launchPhase(Impl::kA2a | Impl::kMatmul | Impl::kRs, done, nullptr);
}

void launchA2aAllToAll(A2aMatmulContext& ctx, Latch& done) {
  ctx.impl_->launchPhase(A2aMatmulContext::Impl::kA2a, done, "all-to-all SyncAll");
}

void launchA2aMatmul(A2aMatmulContext& ctx, Latch& done) {
  ctx.impl_->launchPhase(A2aMatmulContext::Impl::kMatmul, done, "matmul SyncAll");
}

void launchA2aReduceScatter(A2aMatmulContext& ctx, Latch& done) {
  ctx.impl_->launchPhase(A2aMatmulContext::Impl::kRs, done, nullptr);
}

}  // namespace moe
