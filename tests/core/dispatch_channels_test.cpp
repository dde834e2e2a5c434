// The streaming dispatch's token channels: each source card's tokens for another server are
// split into contiguous ranges, each over its own RDMA ring to its own forwarder core, so
// the forwarder cores share the RDMA traffic even with two servers (before, one forwarder
// core per card carried all of a card's RDMA traffic there). Checked: the split itself, the counts
// and where each channel's rows land, every forwarder core at work, and bit-exact dispatch (with
// the ring invariants and exactly-once delivery) over randomized shapes, tiny rings and fp8
// included. Small shapes only: these run under ASan in CI too.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/kernels/dispatch_common.h"
#include "core/plan/dispatch_tiling.h"
#include "core/run/layer_run.h"
#include "core/runtime/record_layout.h"
#include "core/scenario/scenario_json.h"
#include "core/util/rng.h"
#include "tests/core/small_streaming_scenario.h"

using namespace moe;

namespace {

Scenario smallScenario(int servers, int cardsPerServer) {
  Scenario s = test::smallStreamingScenario(servers, cardsPerServer, "channels");
  s.model.tokensPerRank = 24;
  s.rings.setBoth(&RingTiling::forwarderCores, 4);
  return s;
}

std::unique_ptr<LayerRun> runStreaming(const Scenario& s) {
  auto run = std::make_unique<LayerRun>(ResolvedScenario::resolve(s), Design::Streaming);
  run->runToEnd();
  return run;
}

const StageReport& stage(const LayerRun& run, const std::string& prefix) {
  for (const StageReport& r : run.stages())
    if (r.name.rfind(prefix, 0) == 0) return r;
  throw std::logic_error("no stage " + prefix);
}

bool isDispatchRdmaRing(const RingBuffer& r) {
  return r.name().find(" RDMA <- ") != std::string::npos &&
         r.name().find("combine") == std::string::npos;
}

}  // namespace

TEST(DispatchChannels, EnoughChannelsForEveryForwarderCore) {
  Scenario s = smallScenario(2, 2);
  s.rings.setBoth(&RingTiling::forwarderCores, 8);
  EXPECT_EQ(dispatchRdmaChannels(s), 8);  // one other server: 8 channels
  s.cluster.servers = 4;
  EXPECT_EQ(dispatchRdmaChannels(s), 2);  // 3 other servers x 2 channels: no core gets two
  s.cluster.servers = 16;
  EXPECT_EQ(dispatchRdmaChannels(s), 1);  // more servers than cores: one ring each
  s.cluster.servers = 1;
  EXPECT_EQ(dispatchRdmaChannels(s), 1);  // no RDMA at all
  s.cluster.servers = 2;
  s.model.tokensPerRank = 5;
  EXPECT_EQ(dispatchRdmaChannels(s), 5);  // never more channels than tokens
  // The queue of a (source, server) stream is split over its channels, 2 chunks at least.
  s.rings.setBoth(&RingTiling::queueChunks, 16);
  EXPECT_EQ(dispatchChannelQueueChunks(s), 3);
  s.rings.setBoth(&RingTiling::queueChunks, 4);
  EXPECT_EQ(dispatchChannelQueueChunks(s), 2);
}

TEST(DispatchChannels, ChannelsAreContiguousTokenRangesCoveringEveryToken) {
  const Scenario s = smallScenario(2, 1);
  Emulation emu(s);
  for (int bs : {1, 5, 24, 511, 4096})
    for (int c = 1; c <= std::min(bs, 9); ++c) {
      LayerContext ctx(emu, 2, 1);
      ctx.tokensPerRank = bs;
      ctx.channels = c;
      EXPECT_EQ(ctx.channelFirst(0), 0);
      EXPECT_EQ(ctx.channelFirst(c), bs);
      for (int ch = 0; ch < c; ++ch) {
        EXPECT_LT(ctx.channelFirst(ch), ctx.channelFirst(ch + 1)) << bs << " " << c;
        for (int t = ctx.channelFirst(ch); t < ctx.channelFirst(ch + 1); ++t)
          ASSERT_EQ(ctx.channelOf(t), ch) << "BS " << bs << ", " << c << " channels, token " << t;
      }
    }
}

TEST(DispatchChannels, CountsPlaceEachChannelsRowsAfterTheEarlierChannels) {
  // 2 ranks, 2 local experts each, 3 channels. Source 1 sends rank 0: channel 0 -> 2 rows to
  // expert 0, channel 1 -> none, channel 2 -> 1 row to expert 0 and 4 to expert 1.
  const Scenario s = smallScenario(2, 1);
  Emulation emu(s);
  LayerContext ctx(emu, 2, 1);
  ctx.channels = 3;
  ASSERT_EQ(ctx.countCols(), 12);
  std::vector<std::int32_t> counts(static_cast<std::size_t>(ctx.ranks * ctx.countCols()), 0);
  auto cell = [&](int src, int col) -> std::int32_t& {
    return counts[src * ctx.countCols() + col];
  };
  cell(0, ctx.colRows(0, 1)) = 3;  // source 0: 3 rows to expert 0 in channel 1
  cell(0, ctx.colToRank(1)) = 3;
  cell(1, ctx.colRows(0, 0)) = 2;
  cell(1, ctx.colRows(0, 2)) = 1;
  cell(1, ctx.colRows(1, 2)) = 4;
  cell(1, ctx.colToRank(0)) = 2;
  cell(1, ctx.colToRank(2)) = 4;
  cell(1, ctx.colToServer(2)) = 4;
  const RecvPlan p = planFromCounts(ctx, counts.data());
  EXPECT_EQ(p.rows, 10);
  EXPECT_EQ(p.tokensFrom, (std::vector<std::int32_t>{3, 6}));
  EXPECT_EQ(p.tokensToServer, (std::vector<std::int32_t>{0, 4}));
  // Expert-major, rank-minor, and inside (expert, source) channel after channel.
  EXPECT_EQ(p.offsets, (std::vector<std::int32_t>{0, 3, 6, 6}));
  EXPECT_EQ(p.lengths, (std::vector<std::int32_t>{3, 3, 0, 4}));
  EXPECT_EQ(p.expertTokenNums, (std::vector<std::int32_t>{6, 4}));
  const auto at = [&](int le, int src, int ch) {
    return p.channelStart[static_cast<std::size_t>((le * ctx.ranks + src) * ctx.channels + ch)];
  };
  EXPECT_EQ(at(0, 0, 1), 0);
  EXPECT_EQ(at(0, 1, 0), 3);
  EXPECT_EQ(at(0, 1, 2), 5);  // after channel 0's 2 rows (channel 1 has none)
  EXPECT_EQ(at(1, 1, 2), 6);
}

TEST(DispatchChannels, EveryForwarderCoreDrainsAnRdmaRingOnTwoServers) {
  Scenario s = smallScenario(2, 2);
  s.payload = PayloadMode::None;
  s.rings.setBoth(&RingTiling::forwarderCores, 4);
  auto run = runStreaming(s);
  ASSERT_TRUE(run->finished()) << run->emulation().deadlockDiagnosis();
  std::map<int, std::set<int>> consumersPerCard;  // card -> forwarder cores with RDMA data
  for (const RingBuffer& r : run->emulation().rings())
    if (isDispatchRdmaRing(r) && r.stats().recordsRead > 0)
      consumersPerCard[r.consumerCard()].insert(r.consumerCore);
  ASSERT_EQ(consumersPerCard.size(), 4u);
  for (const auto& [card, cores] : consumersPerCard)
    EXPECT_EQ(cores.size(), 4u) << "card " << card << ": forwarder cores with RDMA data";
}

TEST(DispatchChannels, MoreForwarderCoresShortenTheInternodeDispatch) {
  // One forwarder core per card drains every RDMA row it receives; four share them.
  Scenario s = smallScenario(2, 2);
  s.payload = PayloadMode::None;
  s.model.tokensPerRank = 128;
  s.model.hidden = 2048;
  s.rings.setBoth(&RingTiling::chunkBytes, 16384);
  s.rings.setBoth(&RingTiling::forwarderCores, 1);
  const Time one = stage(*runStreaming(s), "dispatch-streaming").duration();
  s.rings.setBoth(&RingTiling::forwarderCores, 4);
  const Time four = stage(*runStreaming(s), "dispatch-streaming").duration();
  EXPECT_LT(four, one);
}

TEST(DispatchChannels, RandomizedShapesDispatchBitExact) {
  Rng rng(21);
  for (int i = 0; i < 10; ++i) {
    const int servers = 2 + static_cast<int>(rng.next() % 3);
    const int cps = 1 + static_cast<int>(rng.next() % 3);
    Scenario s = smallScenario(servers, cps);
    s.seed = 300 + i;
    s.model.tokensPerRank = 3 + static_cast<int>(rng.next() % 38);  // often not a multiple
    s.model.hidden = 32 + 32 * static_cast<int>(rng.next() % 6);
    s.model.dispatchDtype = rng.next() % 2 ? DispatchDtype::Fp8 : DispatchDtype::Bf16;
    s.routing.kind = rng.next() % 2 ? RoutingKind::Hotspot : RoutingKind::PowerLaw;
    s.rings.setBoth(&RingTiling::forwarderCores, 1 + static_cast<int>(rng.next() % 7));
    if (rng.next() % 2) {  // tiny rings: one record per chunk, two chunks: wrap-around
      s.rings.setBoth(&RingTiling::chunkBytes,
                      alignUp(std::max(recordLayout(s).recordBytes, partialRecordBytes(s)), 32));
      s.rings.setBoth(&RingTiling::queueChunks, 2);
    }
    const std::string what = "case " + std::to_string(i) + " (" +
                             std::to_string(dispatchRdmaChannels(s)) +
                             " channels): " + scenarioToJson(s).dump();
    auto run = runStreaming(s);
    ASSERT_TRUE(run->finished()) << what << ": " << run->emulation().deadlockDiagnosis();
    for (const VerificationCheck& c : run->verifyAgainstReference())
      EXPECT_TRUE(c.ok) << what << ": " << c.name << ": " << c.detail;
  }
}
