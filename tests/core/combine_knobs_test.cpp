// The streaming combine's knobs of issue 13 - forwarder channels, BatchWrite batching
// (combine.rdma_batch_bytes), bf16 partials (combine.partial_dtype), the UB accumulation
// window (combine.ub_window_rows) and summing senders (combine.sum_local_experts) - each verified
// against the golden combine reference in randomized combinations, with the ring invariants and
// exactly-once delivery the verification checks. Small shapes only: these run under ASan in CI too.

#include <gtest/gtest.h>

#include <set>

#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/run/layer_run.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/streaming_tuner.h"
#include "core/util/error.h"
#include "core/util/rng.h"
#include "tests/core/small_streaming_scenario.h"

using namespace moe;

namespace {

Scenario tinyScenario(int servers, int cardsPerServer) {
  return test::smallStreamingScenario(servers, cardsPerServer, "knobs");
}

std::unique_ptr<LayerRun> runStreaming(const Scenario& s) {
  auto run = std::make_unique<LayerRun>(ResolvedScenario::resolve(s), Design::Streaming);
  run->runToEnd();
  return run;
}

void expectVerified(const LayerRun& run, const std::string& what) {
  ASSERT_TRUE(run.finished()) << what << ": " << run.emulation().deadlockDiagnosis();
  for (const VerificationCheck& c : run.verifyAgainstReference())
    EXPECT_TRUE(c.ok) << what << ": " << c.name << ": " << c.detail;
}

const StageReport& combineStage(const LayerRun& run) {
  return run.stages().back();
}

}  // namespace

TEST(CombineKnobs, RandomizedCombinationsVerifyAgainstTheReference) {
  Rng rng(13);
  const int serverChoices[] = {1, 2, 8};
  for (int i = 0; i < 9; ++i) {
    const int servers = serverChoices[i % 3];
    const int cps = servers == 8 ? 1 : 2 + static_cast<int>(rng.next() % 2);
    Scenario s = tinyScenario(servers, cps);
    s.seed = 100 + i;
    s.model.tokensPerRank = 8 + static_cast<int>(rng.next() % 17);
    s.model.hidden = 32 + 8 * static_cast<int>(rng.next() % 12);
    s.routing.kind = rng.next() % 2 ? RoutingKind::Hotspot : RoutingKind::PowerLaw;
    s.routing.hotspotFraction = 0.8;
    s.routing.hotspotExperts = 1;
    s.combine.sharedExpert = rng.next() % 2;
    s.combine.addRmsNorm = rng.next() % 3 == 0;
    s.combine.partialDtype = rng.next() % 2 ? PartialDtype::Bf16 : PartialDtype::Fp32;
    s.combine.ubWindowRows = static_cast<int>(rng.next() % 4);  // 0 = auto, 1..3 spill a lot
    s.rings.setBoth(&RingTiling::forwarderCores, 1 + static_cast<int>(rng.next() % 6));
    const std::int64_t pb = partialRecordBytes(s);
    if (rng.next() % 2) {  // tiny rings: one record per chunk, two chunks
      s.rings.setBoth(&RingTiling::chunkBytes,
                      alignUp(std::max(pb, recordLayout(s).recordBytes), 32));
      s.rings.setBoth(&RingTiling::queueChunks, 2);
    }
    const std::int64_t batches[] = {0, pb, 3 * pb, 1 << 20};
    s.combine.rdmaBatchBytes = batches[rng.next() % 4];
    const std::string what = "case " + std::to_string(i) + ": " + scenarioToJson(s).dump();
    auto run = runStreaming(s);
    expectVerified(*run, what);
  }
}

// Summing senders (combine.sum_local_experts) with every other knob: each card's partial
// is rounded to bf16 once more, so the bound widens by 2^-8 of the terms (and by another
// 2^-8 with bf16 partials). Tiny rings here hold one summed record per chunk.
TEST(CombineKnobs, SummingSendersVerifyInRandomizedCombinations) {
  Rng rng(16);
  const int serverChoices[] = {1, 2, 4};
  for (int i = 0; i < 9; ++i) {
    const int servers = serverChoices[i % 3];
    Scenario s = tinyScenario(servers, 2 + static_cast<int>(rng.next() % 2));
    s.seed = 200 + i;
    s.combine.sumLocalExperts = true;
    s.model.tokensPerRank = 5 + static_cast<int>(rng.next() % 20);
    s.model.hidden = 32 + 8 * static_cast<int>(rng.next() % 12);
    s.model.experts = (2 + static_cast<int>(rng.next() % 3)) * s.cluster.ranks();
    s.model.topk = 2 + static_cast<int>(rng.next() % 3);
    s.model.dispatchDtype = rng.next() % 2 ? DispatchDtype::Fp8 : DispatchDtype::Bf16;
    s.combine.sharedExpert = rng.next() % 2;
    s.combine.addRmsNorm = rng.next() % 3 == 0;
    s.combine.partialDtype = rng.next() % 2 ? PartialDtype::Bf16 : PartialDtype::Fp32;
    s.combine.ubWindowRows = static_cast<int>(rng.next() % 3);
    s.rings.setBoth(&RingTiling::forwarderCores, 1 + static_cast<int>(rng.next() % 4));
    if (rng.next() % 2) {
      s.rings.setBoth(&RingTiling::chunkBytes,
                      alignUp(std::max(partialRecordBytes(s), recordLayout(s).recordBytes), 32));
      s.rings.setBoth(&RingTiling::queueChunks, 2);
    }
    const std::string what = "case " + std::to_string(i) + ": " + scenarioToJson(s).dump();
    expectVerified(*runStreaming(s), what);
  }
}

// With summing senders a card sends one row per (token, card) it holds experts of, not one
// per (token, expert): the IPC rings carry exactly the distinct pairs the routing names.
TEST(CombineKnobs, SummingSendersSendOneRowPerTokenAndCard) {
  Scenario s = tinyScenario(2, 2);
  s.model.experts = 4 * s.cluster.ranks();  // 4 experts per card: a token often has several
  s.model.topk = 6;
  auto perExpert = runStreaming(s);
  s.combine.sumLocalExperts = true;
  auto perCard = runStreaming(s);
  expectVerified(*perCard, "summing senders");
  std::int64_t keptRows = 0, tokenCards = 0;
  const LayerContext& ctx = perCard->context();
  for (int r = 0; r < ctx.ranks; ++r) {
    const auto* ids = ctx.cards[r].update.balancedIds->as<std::int32_t>();
    const auto* keep = ctx.cards[r].update.mask->data();
    for (int t = 0; t < ctx.tokensPerRank; ++t) {
      std::set<int> cards;
      for (int k = 0; k < ctx.topK; ++k)
        if (keep[t * ctx.topK + k]) {
          ++keptRows;
          cards.insert(ctx.rankOfInstance(ids[t * ctx.topK + k]));
        }
      tokenCards += static_cast<std::int64_t>(cards.size());
    }
  }
  auto ipcRecords = [](const LayerRun& run) {
    std::int64_t n = 0;
    for (const RingBuffer& r : run.emulation().rings())
      if (r.name().find("combine IPC") != std::string::npos) n += r.stats().recordsWritten;
    return n;
  };
  EXPECT_LT(tokenCards, keptRows);  // the shape does share cards between a token's experts
  EXPECT_EQ(ipcRecords(*perExpert), keptRows);
  EXPECT_EQ(ipcRecords(*perCard), tokenCards);
}

TEST(CombineKnobs, EveryForwarderCoreWorksAndTheirNumberChangesTheTime) {
  // 4 servers, fewer than the forwarder cores: channels split each server's tokens.
  Scenario s = tinyScenario(4, 2);
  s.payload = PayloadMode::None;
  s.rings.setBoth(&RingTiling::forwarderCores, 4);
  auto four = runStreaming(s);
  s.rings.setBoth(&RingTiling::forwarderCores, 8);
  auto eight = runStreaming(s);
  ASSERT_TRUE(four->finished() && eight->finished());
  EXPECT_NE(combineStage(*four).duration(), combineStage(*eight).duration());
  // Every forwarder core of every card spent time in the combine.
  const Machine& m = eight->emulation().machine();
  int working = 0;
  for (int c = 0; c < m.coreCount(); ++c) {
    Time t = 0;
    for (Time a : m.core(c).roleActivityTime(Role::Forwarder)) t += a;
    if (t > 0) ++working;
  }
  EXPECT_EQ(working, 8 * s.cluster.ranks());
}

TEST(CombineKnobs, BatchingGathersPartialsIntoFewerLargerPosts) {
  Scenario s = tinyScenario(2, 2);
  s.model.tokensPerRank = 32;
  s.combine.rdmaBatchBytes = 0;
  auto single = runStreaming(s);
  s.combine.rdmaBatchBytes = s.rings.combine.chunkBytes * s.rings.combine.queueChunks;
  auto batched = runStreaming(s);
  expectVerified(*single, "batch 0");
  expectVerified(*batched, "batch = ring");
  const StageReport &a = combineStage(*single), &b = combineStage(*batched);
  EXPECT_EQ(a.rdmaDataBytes, b.rdmaDataBytes);  // the same partials cross the wire
  EXPECT_EQ(a.meanRdmaPostBytes(), static_cast<double>(partialRecordBytes(s)));
  EXPECT_LT(b.rdmaPosts * 2, a.rdmaPosts);
  EXPECT_GT(b.meanRdmaPostBytes(), 2 * a.meanRdmaPostBytes());
}

TEST(CombineKnobs, Bf16PartialsHalveTheRowBytesOnTheWire) {
  Scenario s = tinyScenario(2, 2);
  s.model.hidden = 128;
  s.combine.rdmaBatchBytes = 0;
  auto fp32 = runStreaming(s);
  s.combine.partialDtype = PartialDtype::Bf16;
  auto bf = runStreaming(s);
  expectVerified(*bf, "bf16 partials");
  const RecordLayout rec = recordLayout(s);
  const double rows = static_cast<double>(combineStage(*fp32).rdmaDataPosts);
  EXPECT_EQ(combineStage(*fp32).rdmaDataBytes, rows * (rec.metaBytes + 4 * 128));
  EXPECT_EQ(combineStage(*bf).rdmaDataBytes, rows * (rec.metaBytes + 2 * 128));
}

TEST(CombineKnobs, AWindowOfOneRowSpillsAndStillMatches) {
  Scenario s = tinyScenario(2, 2);
  s.combine.ubWindowRows = 1;
  expectVerified(*runStreaming(s), "window 1");
  s.combine.ubWindowRows = 0;  // auto: every partial of a lane fits UB at this size
  EXPECT_GT(combineUbWindowRows(s), 100);
  expectVerified(*runStreaming(s), "window auto");
}

TEST(CombineKnobs, BadKnobsAreRefusedNamingTheField) {
  auto refuse = [](const std::string& patch, const std::string& field) {
    nlohmann::json j = scenarioToJson(Scenario{});
    j["combine"].merge_patch(nlohmann::json::parse(patch));
    try {
      checkScenario(scenarioFromJson(j));
      ADD_FAILURE() << patch << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.path(), field) << e.what();
    }
  };
  refuse(R"({"partial_dtype": "fp16"})", "combine.partial_dtype");
  refuse(R"({"rdma_batch_bytes": -1})", "combine.rdma_batch_bytes");
  refuse(R"({"ub_window_rows": 5000})", "combine.ub_window_rows");
  refuse(R"({"sum_local_experts": 1})", "combine.sum_local_experts");
  // A summing sender's fp32 sum row and two expert rows (76 KiB at H 7168) beside a 64 KiB
  // UB: refused up front, naming the knob rather than the chunk size.
  nlohmann::json j = scenarioToJson(Scenario{});
  j["combine"]["sum_local_experts"] = true;
  j["hardware"]["overrides"]["ub_bytes"] = 65536;
  j["rings"]["chunk_bytes"] = 28800;  // one fp32 partial record
  try {
    checkScenario(scenarioFromJson(j));
    ADD_FAILURE() << "a summing sender beyond the UB was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "combine.sum_local_experts") << e.what();
  }
  // 7 fp32 rows of 28 KiB beside the read batch overflow the 192 KiB UB.
  refuse(R"({"ub_window_rows": 7})", "combine.ub_window_rows");
}

TEST(CombineKnobs, ForwarderChannelsKeepOneProducerAndOneConsumerPerRing) {
  Scenario s = tinyScenario(2, 2);
  s.payload = PayloadMode::None;
  s.rings.setBoth(&RingTiling::forwarderCores, 6);
  auto run = runStreaming(s);
  ASSERT_TRUE(run->finished());
  for (const RingBuffer& r : run->emulation().rings()) {
    if (r.name().find("combine") == std::string::npos || r.stats().recordsWritten == 0) continue;
    EXPECT_GE(r.producerCore, 0) << r.name();
    EXPECT_GE(r.consumerCore, 0) << r.name();
  }
  int lanes = 0, channels = 0;
  combineLanesAndChannels(s, lanes, channels);
  EXPECT_EQ(lanes, 6);
  EXPECT_EQ(channels, 3);
}

// Every card's senders start with their own forwarders and go round the server. When they
// all began with card 0, every sender of the server wrote into card 0's port at once while
// the other ports idled, and so on card after card: on this shape the switch's transmit
// ports were 30 % busy over the combine (1076 us). Spread out they are 68 % busy (475 us).
TEST(CombineKnobs, SendersOfEveryCardSpreadOverTheServersPorts) {
  Scenario s;
  s.name = "spread";
  s.hardware = builtinProfile("h800-nvswitch");
  s.profileName = s.hardware.name;
  s.cluster.servers = 1;
  s.cluster.cardsPerServer = 8;
  s.model.tokensPerRank = 512;
  s.model.hidden = 7168;
  s.model.experts = 64;
  s.model.topk = 8;
  s.routing.kind = RoutingKind::Uniform;
  s.payload = PayloadMode::None;
  s.dispatchImpl = Design::Streaming;
  s.rings.setBoth(RingTiling{98304, 16, 8, 8, 8});
  const auto run = runStreaming(s);
  ASSERT_TRUE(run->finished()) << run->emulation().deadlockDiagnosis();
  const StageReport& c = combineStage(*run);
  // Bytes over the transmit ports per picosecond, against all eight ports' capacity.
  const double busy =
      c.hccsBytes / static_cast<double>(c.duration()) / (8 * gbpsToBytesPerPs(s.hardware.portGBps));
  EXPECT_GT(busy, 0.5) << "switch ports busy " << busy << " of the combine";
}

// A card's senders list their targets diagonally: every (card, lane) pair once, each round of
// cardsPerServer targets names every card once (the first round starting with the card
// itself), and with as many cores as cards each core gets the card's own target once in any
// cardsPerServer rounds. The cores serve the list in step, so every forwarder card gets rows all
// through the stage; card by card, a hot card's last forwarder got them only at the end
// (4 x 8 x 4096 tokens, hot routing: combine 54.4 ms, 37.9 ms diagonally).
TEST(CombineKnobs, SendersTakeTheirTargetsDiagonally) {
  for (const auto& [cps, lanes] : {std::pair{8, 12}, {8, 8}, {8, 4}, {4, 6}, {2, 1}}) {
    for (int own = 0; own < cps; ++own) {
      const std::vector<SenderTargetSlot> order = senderTargetOrder(cps, lanes, own);
      ASSERT_EQ(order.size(), static_cast<std::size_t>(cps * lanes));
      std::set<std::pair<int, int>> pairs;
      for (const SenderTargetSlot& t : order) pairs.insert({t.localCard, t.lane});
      EXPECT_EQ(pairs.size(), order.size()) << "a (card, lane) pair twice";
      EXPECT_EQ(order.front().localCard, own);
      for (int n = 0; n < lanes; ++n) {
        std::set<int> cards;
        for (int i = 0; i < cps; ++i) cards.insert(order[n * cps + i].localCard);
        EXPECT_EQ(cards.size(), static_cast<std::size_t>(cps))
            << cps << " cards, " << lanes << " lanes, round " << n;
      }
      // With cps cores, core i takes place i of every round: over any cps rounds, the
      // card's own (local, cheap) target once.
      if (lanes >= cps)
        for (int i = 0; i < cps; ++i) {
          int ownTargets = 0;
          for (int n = 0; n < cps; ++n) ownTargets += order[n * cps + i].localCard == own ? 1 : 0;
          EXPECT_EQ(ownTargets, 1) << "core " << i;
        }
    }
    // In a round, the server's cards (each counting from itself) put a forwarder card in
    // different lanes: with at least as many lanes as cards, in as many lanes as cards.
    if (lanes >= cps)
      for (int n = 0; n < lanes; ++n)
        for (int f = 0; f < cps; ++f) {
          std::set<int> lanesOfF;
          for (int own = 0; own < cps; ++own)
            for (int i = 0; i < cps; ++i)
              if (const SenderTargetSlot t = senderTargetOrder(cps, lanes, own)[n * cps + i];
                  t.localCard == f)
                lanesOfF.insert(t.lane);
          EXPECT_EQ(lanesOfF.size(), static_cast<std::size_t>(cps)) << "card " << f;
        }
  }
}

TEST(StreamingTuner, DeterministicWhateverTheThreadsAndNeverWorseThanTheScenario) {
  Scenario s = tinyScenario(2, 2);
  TuneOptions o;
  o.budget = 4;
  o.threads = 1;
  const TuneResult one = tuneStreaming(s, o);
  o.threads = 2;
  const TuneResult two = tuneStreaming(s, o);
  ASSERT_TRUE(one.best.ok);
  EXPECT_EQ(one.best.knobs, two.best.knobs);
  EXPECT_EQ(one.best.totalUs, two.best.totalUs);
  EXPECT_EQ(one.runs, 4);  // the budget counts every run: baseline, phased, candidates, checks
  EXPECT_EQ(one.evaluated.size(), 2u);
  EXPECT_GT(one.neighbourChecks, 0);
  EXPECT_LE(one.best.totalUs, one.baseline.totalUs);
  EXPECT_EQ(one.bindings.size(), 9u);  // one per searched knob
  // The tuned scenario is the given one with the best knobs, and it runs.
  EXPECT_EQ(knobsOf(one.tuned), one.best.knobs);
  EXPECT_EQ(one.tuned.payload, s.payload);
  EXPECT_TRUE(tuneConstraint(one.tuned).empty());
}

TEST(StreamingTuner, HardConstraintsAreNamed) {
  Scenario s = tinyScenario(2, 2);
  s.rings.setBoth(&RingTiling::senderCores, 30);
  s.rings.setBoth(&RingTiling::forwarderCores, 8);
  s.rings.setBoth(&RingTiling::receiverCores, 8);
  EXPECT_NE(tuneConstraint(s).find("aiv_cores"), std::string::npos) << tuneConstraint(s);
  s = tinyScenario(2, 2);
  s.rings.setBoth(&RingTiling::chunkBytes, 64);
  EXPECT_NE(tuneConstraint(s).find("smaller than one"), std::string::npos) << tuneConstraint(s);
}
