// Flat full-mesh combine, the way back of the flat dispatch (dispatch_flat.cpp): every
// expert output row goes straight to the rank that owns its token, with no forwarder and no
// partial sums on the way (DeepEP's low-latency combine has this shape).
//
//   Sender (expert card d), per owner rank r (round-robin over the sender cores): the rows
//     of expert_out that belong to r (the (local expert, r) ranges of the Offset/Length
//     tables, in order) go, a batch of contiguous rows at a time, to d's window on r:
//       other server             -> one RDMA post per batch, GM -> GM (rdma_post_ns each);
//       same card or same server -> through UB staging, one DataCopy per batch;
//     after each batch the (r <- d) arrival counter is published behind the data.
//   Receiver (owner r), per token of its share: waits until each kept (token, k) row has
//     arrived (the receiver knows each row's place in its sender's order from its own
//     routing), sums weight x row in fp32 in k order and finishes the token (shared expert,
//     one bf16 rounding, AddRmsNorm) with the same CombineFinisher as the other designs.

#include <algorithm>
#include <memory>
#include <string>

#include "core/kernels/combine_common.h"
#include "core/kernels/dispatch_common.h"
#include "core/kernels/kernels.h"
#include "core/util/bf16.h"

namespace moe {

namespace {

struct FlatCombine {
  // [owner r][expert card d]: d's rows for r in d's sending order (local experts in order,
  // each expert's rows of r in token order), and how many of them have landed.
  std::vector<std::vector<Buffer*>> recv;
  std::vector<std::vector<Word*>> landed;
};

Task flatCombineSender(LayerContext& ctx, int d, AiCore& core, std::shared_ptr<FlatCombine> w,
                       std::vector<int> owners) {
  Machine& m = ctx.m;
  const DispatchTensors& dispatched = ctx.cards[d].dispatch;
  const ExpertTensors& experts = ctx.cards[d].experts;
  const std::int64_t row = ctx.rowBytes, slot = alignUp(row, 32);
  const std::int64_t perBatch = std::max<std::int64_t>(1, ctx.sc.rings.combine.chunkBytes / slot);
  Buffer* staging = m.allocUb(core, perBatch * slot, "staging", true);
  const auto* off = dispatched.offsets->as<std::int32_t>();
  const auto* len = dispatched.lengths->as<std::int32_t>();
  for (int r : owners) {
    const bool remote = ctx.serverOf(r) != ctx.serverOf(d);
    Word& counter = *w->landed[r][d];
    Buffer* window = w->recv[r][d];
    std::int64_t sent = 0;
    // The rows of (local expert le, owner r) are contiguous in expert_out and land
    // contiguously in r's window: one transfer per batch of them.
    for (int le = 0; le < ctx.placePerRank; ++le) {
      const std::int64_t begin = off[le * ctx.ranks + r], rows = len[le * ctx.ranks + r];
      for (std::int64_t b0 = 0; b0 < rows; b0 += perBatch) {
        const std::int64_t n = std::min(perBatch, rows - b0);
        const Region dst{window, sent * row, n * row};
        const Region src{experts.expertOut, (begin + b0) * row, n * row};
        sent += n;
        if (remote) {
          // GM -> GM, one post; the counter rides the same queue pair behind the rows.
          const OpRef data = core.rdmaWrite(dst, src);
          core.rdmaWriteWord(counter, sent, data);
        } else {
          co_await core.copy(Region{staging, 0, n * row}, src);
          core.copy(dst, Region{staging, 0, n * row});
          co_await core.fence(Pipe::Mte3);  // the rows land before the counter says so
          core.writeWord(counter, sent);
        }
      }
    }
  }
  co_await core.fence(Pipe::Scalar);  // counter writes and RDMA posts have landed
}

// Each kept (token, k) row's sender and its place in that sender's order for this
// receiver: local experts in order, then tokens in order (expandX is expert-major,
// rank-minor, and a source's rows of one expert are in token order). -1: not sent.
struct RowSources {
  std::vector<int> from;
  std::vector<std::int64_t> place;
};

RowSources rowSources(const LayerContext& ctx, const std::vector<std::int32_t>& ids,
                      const std::vector<std::uint8_t>& keep) {
  const int BS = ctx.tokensPerRank, K = ctx.topK;
  RowSources out{std::vector<int>(static_cast<std::size_t>(BS) * K, -1),
                 std::vector<std::int64_t>(static_cast<std::size_t>(BS) * K, 0)};
  std::vector<std::int64_t> before(static_cast<std::size_t>(ctx.ranks) * ctx.placePerRank, 0);
  for (int t = 0; t < BS; ++t)
    for (int k = 0; k < K; ++k) {
      const std::size_t i = static_cast<std::size_t>(t) * K + k;
      if (!keep[i]) continue;
      const int id = ids[i];
      ++before[static_cast<std::size_t>(ctx.rankOfInstance(id)) * ctx.placePerRank +
               id % ctx.placePerRank];
    }
  // Exclusive prefix over local experts per sender, then count up in token order.
  std::vector<std::int64_t> cursor(before.size(), 0);
  for (int d = 0; d < ctx.ranks; ++d) {
    std::int64_t acc = 0;
    for (int le = 0; le < ctx.placePerRank; ++le) {
      const std::size_t j = static_cast<std::size_t>(d) * ctx.placePerRank + le;
      cursor[j] = acc;
      acc += before[j];
    }
  }
  for (int t = 0; t < BS; ++t)
    for (int k = 0; k < K; ++k) {
      const std::size_t i = static_cast<std::size_t>(t) * K + k;
      if (!keep[i]) continue;
      const int id = ids[i];
      out.from[i] = ctx.rankOfInstance(id);
      out.place[i] = cursor[static_cast<std::size_t>(out.from[i]) * ctx.placePerRank +
                            id % ctx.placePerRank]++;
    }
  return out;
}

Task flatCombineReceiver(LayerContext& ctx, int r, AiCore& core, std::shared_ptr<FlatCombine> w,
                         int receiverIndex) {
  Machine& m = ctx.m;
  // The routing is read window by window into UB (the loads cost their time); the receiver
  // keeps what it needs of each window (sender, place, weight per kept row) as it goes.
  const int BS = ctx.tokensPerRank, K = ctx.topK;
  std::vector<std::int32_t> ids(static_cast<std::size_t>(BS) * K);
  std::vector<std::uint8_t> keep(ids.size());
  std::vector<float> weights(ids.size());
  {
    RoutingInUb routing = allocRouting(ctx, core);
    for (int first = 0; first < BS; first += routingWindowTokens(BS)) {
      co_await loadRouting(ctx, core, r, routing, first);
      const std::size_t at = static_cast<std::size_t>(first) * K;
      const std::size_t n = static_cast<std::size_t>(routing.count) * K;
      std::copy_n(routing.ids(), n, ids.begin() + static_cast<std::ptrdiff_t>(at));
      std::copy_n(routing.keep(), n, keep.begin() + static_cast<std::ptrdiff_t>(at));
      std::copy_n(routing.weights(), n, weights.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
  const RowSources src = rowSources(ctx, ids, keep);
  const std::vector<int>& from = src.from;
  const std::vector<std::int64_t>& place = src.place;
  CombineFinisher finisher(ctx, core, r);
  Buffer* y = m.allocUb(core, alignUp(ctx.rowBytes, 32), "row", true);
  for (int t = receiverIndex; t < BS; t += ctx.sc.rings.combine.receiverCores) {
    Buffer* sum = finisher.sum();
    if (!sum->bytes.empty()) std::fill_n(sum->as<float>(), ctx.hidden, 0.0f);
    for (int k = 0; k < K; ++k) {
      const std::size_t i = static_cast<std::size_t>(t) * K + k;
      if (from[i] < 0) continue;
      Word& counter = *w->landed[r][from[i]];
      while (counter.value <= place[i]) {
        auto change =
            core.changeOf(counter, counter.value, Activity::WaitData, [&counter, v = place[i] + 1] {
              return counter.name.str() + " >= " + std::to_string(v);
            });
        co_await change;
      }
      co_await core.copy(Region{y, 0, ctx.rowBytes},
                         Region{w->recv[r][from[i]], place[i] * ctx.rowBytes, ctx.rowBytes});
      co_await core.vector(ctx.hidden, 4);
      if (!sum->bytes.empty()) {
        const float weight = weights[i];
        const bf16* v = y->as<bf16>();
        float* s = sum->as<float>();
        for (int h = 0; h < ctx.hidden; ++h) s[h] += weight * bf16ToFloat(v[h]);
      }
    }
    co_await finisher.finish(t);
  }
}

}  // namespace

void launchCombineFlat(LayerContext& ctx, Latch& done) {
  Machine& m = ctx.m;
  const RingTiling& t = ctx.sc.rings.combine;
  auto w = std::make_shared<FlatCombine>();
  // Worst case per (owner, expert card): every token of the owner, once per expert the card
  // holds for it.
  const std::int64_t bytes = static_cast<std::int64_t>(ctx.tokensPerRank) *
                             std::min(ctx.topK, ctx.placePerRank) * ctx.rowBytes;
  w->recv.resize(ctx.ranks);
  w->landed.resize(ctx.ranks);
  for (int r = 0; r < ctx.ranks; ++r)
    for (int d = 0; d < ctx.ranks; ++d) {
      Buffer* b = m.allocGm(r, bytes, "combine.flat-win<-card" + std::to_string(d), true,
                            /*sparse=*/true);
      ctx.stageScratch.push_back(b);
      ctx.combineBufferBytes += bytes;
      w->recv[r].push_back(b);
      w->landed[r].push_back(m.makeWord(r, "combine.flat.landed<-card" + std::to_string(d)));
    }
  for (int c = 0; c < ctx.ranks; ++c) {
    std::vector<std::vector<int>> perSender(t.senderCores);
    for (int i = 0; i < ctx.ranks; ++i) perSender[i % t.senderCores].push_back((c + i) % ctx.ranks);
    for (int i = 0; i < t.senderCores; ++i) {
      if (perSender[i].empty()) continue;
      done.add(1);
      ctx.emu.launch(m.aiv(c, i), Role::Sender,
                     flatCombineSender(ctx, c, m.aiv(c, i), w, perSender[i]), &done);
    }
    for (int i = 0; i < std::min(t.receiverCores, ctx.tokensPerRank); ++i) {
      AiCore& core = m.aiv(c, t.senderCores + i);
      done.add(1);
      ctx.emu.launch(core, Role::Receiver, flatCombineReceiver(ctx, c, core, w, i), &done);
    }
  }
}

}  // namespace moe
