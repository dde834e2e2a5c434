// Issue 17: the memory estimate made before a run, against what the run allocates, and the
// refusals it drives (HBM per card, host memory), with the figure in the message.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/machine/memory.h"
#include "core/run/layer_run.h"
#include "core/run/memory_estimate.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

using namespace moe;

namespace {

std::int64_t peakGmPerCard(const LayerRun& run) {
  const Machine& m = run.emulation().machine();
  std::int64_t peak = 0;
  for (int c = 0; c < m.cardCount(); ++c) peak = std::max(peak, m.card(c).gmAllocated);
  return peak;
}

}  // namespace

TEST(MemoryEstimate, TracksWhatEachDesignAllocatesOnTheDefaultScenario) {
  for (Design impl : {Design::Phased, Design::Streaming}) {
    Scenario sc;  // the default: 2 servers x 8 cards, power-law routing
    sc.dispatchImpl = impl;
    const int P = placePerRankOf(sc);
    const MemoryEstimate e = estimateMemory(sc, P);
    LayerRun run(ResolvedScenario::resolve(sc), impl);
    run.runToEnd();
    ASSERT_TRUE(run.finished());
    const std::int64_t actual = peakGmPerCard(run);
    // The receive side enters at its average (BS x K rows per card); the busiest card of a
    // power-law routing receives more, so the estimate may fall short of the peak, but not
    // by more than the receive buffers' skew. It never counts double what is allocated.
    EXPECT_GT(e.gmPerCard, actual / 2)
        << designName(impl) << ": estimate " << e.gmPerCard << " B, allocated " << actual << " B";
    EXPECT_LT(e.gmPerCard, actual * 2) << designName(impl);
    EXPECT_LE(e.fixedGmPerCard, e.gmPerCard);
  }
}

TEST(MemoryEstimate, PayloadNoneHoldsOnlyMetadataOnTheHost) {
  Scenario full;
  full.dispatchImpl = Design::Streaming;
  full.eventLogCapacity = 1024;  // the event log is the same in both modes: keep it small
  Scenario none = full;
  none.payload = PayloadMode::None;
  const int P = placePerRankOf(full);
  const MemoryEstimate f = estimateMemory(full, P), n = estimateMemory(none, P);
  EXPECT_EQ(f.gmPerCard, n.gmPerCard) << "emulated HBM does not depend on the payload mode";
  EXPECT_LT(n.hostBytes * 20, f.hostBytes) << "payload none must not hold token data";
}

TEST(MemoryEstimate, RefusesWhatHbmOrTheHostCannotHoldWithTheFigure) {
  Scenario sc;
  sc.hardware.hbmBytes = 1;
  const int P = placePerRankOf(sc);
  try {
    checkMemory(sc, P, UINT64_MAX);
    FAIL() << "1 B of HBM accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "hardware.overrides.hbm_bytes");
    EXPECT_NE(e.rule().find("1 B cannot hold one card's"), std::string::npos) << e.rule();
  }
  sc = Scenario{};
  try {
    checkMemory(sc, P, 1 << 20);
    FAIL() << "a 1 MiB host accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "payload");
    EXPECT_NE(e.rule().find("of host memory, more than the 1.0 MiB"), std::string::npos)
        << e.rule();
  }
  EXPECT_NO_THROW(checkMemory(Scenario{}, P, UINT64_MAX));
}

// Host memory refusals name the field that makes the bulk and advise only what would shrink
// it: a huge event log is event_log_capacity's fault, and payload "none" is never told to
// use payload "none".
TEST(MemoryEstimate, AHostRefusalBlamesTheLargestPartsField) {
  Scenario logHeavy;
  logHeavy.payload = PayloadMode::None;
  logHeavy.eventLogCapacity = std::int64_t{1} << 26;  // 4 GiB of event log
  const int P = placePerRankOf(logHeavy);
  const MemoryEstimate e = estimateMemory(logHeavy, P);
  try {
    checkMemory(logHeavy, P, e.hostBytes - 1);
    FAIL() << "accepted over the limit";
  } catch (const InputError& ex) {
    EXPECT_EQ(ex.path(), "event_log_capacity");
    EXPECT_NE(ex.rule().find("lower event_log_capacity"), std::string::npos) << ex.rule();
  }
  Scenario none;
  none.payload = PayloadMode::None;
  none.eventLogCapacity = 1024;
  const MemoryEstimate n = estimateMemory(none, P);
  EXPECT_EQ(n.activationHostBytes, 0u);
  try {
    checkMemory(none, P, n.hostBytes - 1);
    FAIL() << "accepted over the limit";
  } catch (const InputError& ex) {
    EXPECT_EQ(ex.path(), "model");
    EXPECT_EQ(ex.rule().find("payload"), std::string::npos) << ex.rule();
  }
}

TEST(MemoryEstimate, LargeRunsGetANoteAndTheDefaultDoesNot) {
  Scenario sc;
  EXPECT_EQ(largeWorkNote(sc), "");
  sc.cluster.servers = 24;  // 192 ranks x 512 tokens x top-16
  sc.model.tokensPerRank = 512;
  sc.model.topk = 16;
  EXPECT_NE(largeWorkNote(sc).find("it may take minutes"), std::string::npos);
  Scenario wide;  // fewer records, but on 256 ranks each costs more
  wide.cluster.servers = 32;
  EXPECT_NE(largeWorkNote(wide).find("it may take minutes"), std::string::npos);
  wide.cluster.servers = 8;  // 64 ranks: a few seconds
  EXPECT_EQ(largeWorkNote(wide), "");
  Scenario fused;
  fused.workload.kind = WorkloadKind::AlltoallMatmulRs;
  EXPECT_EQ(largeWorkNote(fused), "");
  fused.workload.n = 65536;
  EXPECT_NE(largeWorkNote(fused).find("matmul tile steps"), std::string::npos);
}

// The host estimate bounds what a run that frees its dead tensors (as moe-sim run does)
// really holds: the peak of the cards' resident GM, sampled through the run, lies between
// the tensors live at the experts stage and the estimate. At the experts such a run holds
// expand_x (expert_out is computed into expand_x's bytes; x_out holds no pages until the
// combine writes it; x reads the gating's bytes, which the estimate counts once per run).
// The estimate counts every ring full at once (the worst case, e.g. a deadlock); a run holds
// only the ring pages with unread data, so the gap is widest for the streaming design.
TEST(MemoryEstimate, HostBytesTrackTheResidentGmOfARunThatFreesDeadTensors) {
  for (Design impl : {Design::Phased, Design::Streaming}) {
    Scenario sc;  // the default, at half the tokens to keep the test short
    sc.model.tokensPerRank = 64;
    sc.dispatchImpl = impl;
    sc.eventLogCapacity = 1024;
    const MemoryEstimate e = estimateMemory(sc, placePerRankOf(sc));
    const std::uint64_t gmEstimate = e.hostBytes - 1024 * 64;  // without the event log
    // Warm chunks an earlier test in this process left would count as resident here.
    releaseWarmHostMemory();
    LayerRun run(ResolvedScenario::resolve(sc), impl);
    run.freeTensorsWhenDead(nullptr);
    std::uint64_t peak = 0, events = 0;
    while (run.step())
      if ((++events & 0x7ff) == 0)
        peak = std::max<std::uint64_t>(peak, run.emulation().machine().residentGmBytes());
    ASSERT_TRUE(run.finished());
    EXPECT_LT(peak, gmEstimate) << designName(impl) << ": resident peak " << peak << " B, estimate "
                                << gmEstimate << " B";
    std::uint64_t liveAtExperts = 0;
    const std::uint64_t row = static_cast<std::uint64_t>(sc.model.hidden) * 2;
    for (const CardTensors& t : run.context().cards)
      liveAtExperts += static_cast<std::uint64_t>(t.dispatch.recvRows) * row;
    EXPECT_GT(peak, liveAtExperts) << designName(impl) << ": resident peak " << peak
                                   << " B, tensors live at the experts " << liveAtExperts << " B";
  }
}
