// The closed-form role model behind the tiling proposal: its routing shares and one limit
// derived by hand on a tiny case, role times that move the right way with H, top-k and the
// number of servers, and a proposal that follows the token count.

#include <gtest/gtest.h>

#include <cmath>

#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/plan/rdma_batch_proposal.h"
#include "core/plan/role_throughput.h"
#include "core/plan/tiling_explain.h"
#include "core/runtime/record_layout.h"
#include "core/util/error.h"

namespace moe {
namespace {

// 2 servers x 2 cards, 4 experts (one per card), top-1, uniform routing, H 256.
Scenario tinyUniform() {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 2;
  s.hardware.cardsPerServer = 2;
  s.model.tokensPerRank = 64;
  s.model.hidden = 256;
  s.model.experts = 4;
  s.model.topk = 1;
  s.routing.kind = RoutingKind::Uniform;
  s.payload = PayloadMode::None;
  return s;
}

// The issue's shape: 4 servers x 8 cards, H 7168, 256 experts, top-8, power-law routing.
Scenario issueShape(int tokens) {
  Scenario s;
  s.cluster.servers = 4;
  s.cluster.cardsPerServer = 8;
  s.model.tokensPerRank = tokens;
  s.model.hidden = 7168;
  s.model.experts = 256;
  s.model.topk = 8;
  s.payload = PayloadMode::None;
  return s;
}

RingTiling someTiling() {
  RingTiling t;
  t.chunkBytes = 64 << 10;
  t.queueChunks = 8;
  t.senderCores = 8;
  t.forwarderCores = 8;
  t.receiverCores = 8;
  return t;
}

TEST(RoleThroughput, RoutingSharesByHandOnATinyUniformCase) {
  const RoutingShares sh = routingShares(tinyUniform());
  // Each of 4 equally popular experts takes a token's one slot with probability 1/4; a card
  // holds one expert, a server two: hit 1 - (3/4)^2 = 7/16.
  ASSERT_EQ(sh.cardSlots.size(), 4u);
  for (int d = 0; d < 4; ++d) {
    EXPECT_DOUBLE_EQ(sh.cardSlots[d], 0.25);
    EXPECT_DOUBLE_EQ(sh.cardHit[d], 0.25);
  }
  ASSERT_EQ(sh.serverHit.size(), 2u);
  EXPECT_DOUBLE_EQ(sh.serverHit[0], 7.0 / 16);
  EXPECT_DOUBLE_EQ(sh.serverHit[1], 7.0 / 16);
}

TEST(RoleThroughput, ASaturatedExpertTakesEveryToken) {
  // Power-law popularity with a steep exponent: the top expert's K * p passes 1, so it is
  // picked by every token (an expert takes at most one slot per token) and its card's hit
  // probability is 1; the slots still add up to K.
  Scenario s = issueShape(128);
  s.routing.alpha = 3.0;
  const RoutingShares sh = routingShares(s);
  double slots = 0, hit = 0;
  for (std::size_t d = 0; d < sh.cardSlots.size(); ++d) {
    slots += sh.cardSlots[d];
    hit = std::max(hit, sh.cardHit[d]);
  }
  EXPECT_NEAR(slots, 8.0, 1e-9);
  EXPECT_DOUBLE_EQ(hit, 1.0);
}

TEST(RoleThroughput, ASlowNicBindsTheDispatchForwarderAtTheBytesItCarries) {
  Scenario s = tinyUniform();
  s.hardware.nicGBps = 0.001;  // 1 B/us: the NIC is the limit by far
  const StagePrediction p = predictStage(s, routingShares(s), RingStage::Dispatch, someTiling());
  // Into a card's NIC: from the one other server, 64 tokens, each bound for this server with
  // probability 7/16, one dispatch record each (64 B header + 512 B bf16 row).
  const double rb = static_cast<double>(recordLayout(s).dispatchRecordBytes);
  ASSERT_EQ(rb, 576.0);
  EXPECT_EQ(p.forwarderLimit, "NIC in");
  EXPECT_NEAR(p.forwarderNs, 64 * (7.0 / 16) * 576 / 0.001, 1e-3);
  // Out of a card's NIC the same: its 64 tokens to the other server, with the same odds.
  EXPECT_EQ(p.senderLimit, "NIC out");
  EXPECT_NEAR(p.senderNs, 64 * (7.0 / 16) * 576 / 0.001, 1e-3);
  EXPECT_LT(p.receiverNs, p.forwarderNs);
  EXPECT_GT(p.stageNs(), p.forwarderNs);  // plus the fill
}

// Each partial ring to another server holds back up to one RDMA batch until its forwarder
// runs dry at the stage's end; the card's NIC then carries them all, after everything else.
// At 128 tokens that tail is what a large batch costs (the engine: 288 us with 256 KiB, 235
// us with one partial per post, 2 x 8 cards), and tiling's explanation says which batch the
// model prefers.
TEST(RoleThroughput, TheCombinesLastRdmaBatchesAreATailOnTheNic) {
  Scenario s = issueShape(128);
  s.rings.combine = someTiling();
  s.rings.combine.queueChunks = 32;
  const RoutingShares sh = routingShares(s);
  auto predict = [&](std::int64_t batch) {
    s.combine.rdmaBatchBytes = batch;
    return predictStage(s, sh, RingStage::Combine, s.rings.combine);
  };
  const StagePrediction one = predict(32 << 10), nine = predict(256 << 10);
  int lanes = 0, channels = 0;
  combineLanesAndChannels(s, lanes, channels);
  const double pb = static_cast<double>(partialRecordBytes(s));
  ASSERT_EQ(std::floor((256 << 10) / pb), 9.0);
  ASSERT_EQ(one.card, nine.card);
  const double ringPartials = 128.0 / channels * sh.serverHit[one.card / 8];
  ASSERT_GT(ringPartials, 9.0);           // every ring's last batch is a full one
  const double nic = s.hardware.nicGBps;  // GB/s: bytes per ns
  // Eight partials more in each of the 3 x channels rings' last batch, and in the first
  // batch's way to the receiver (the fill).
  EXPECT_NEAR(nine.fillNs - one.fillNs, (3.0 * channels + 1) * (9 - 1) * pb / nic, 1e-6);
  EXPECT_GT(nine.stageNs(), one.stageNs());
  s.combine.rdmaBatchBytes = 256 << 10;
  bool advised = false;
  for (const TilingLine& l : explainTiling(s, s.placePerRank()))
    advised = advised || (l.field == "combine.rdma_batch_bytes" &&
                          l.text.find("32 KiB proposed (the scenario has 256 KiB)") == 0);
  EXPECT_TRUE(advised);
}

// The batch tiling proposes is the least predicted combine among the batches it tries, and
// the scenario's own unless another is at least 1% faster.
TEST(RoleThroughput, TheProposedRdmaBatchIsTheModelsFastestAndKeepsAFlatChoice) {
  Scenario s = issueShape(128);
  s.rings.combine = someTiling();
  s.rings.combine.queueChunks = 32;
  s.combine.rdmaBatchBytes = 256 << 10;
  const RoutingShares sh = routingShares(s);
  const RdmaBatchProposal p = proposeRdmaBatch(s, sh);
  EXPECT_EQ(p.bytes, 32 << 10);
  EXPECT_TRUE(p.changed());
  for (std::int64_t b = 32 << 10; b <= 1 << 20; b *= 2) {
    Scenario t = s;
    t.combine.rdmaBatchBytes = b;
    EXPECT_GE(predictStage(t, sh, RingStage::Combine, t.rings.combine).stageNs(), p.ns) << b;
  }
  s.combine.rdmaBatchBytes = 32 << 10;  // already the best: kept, not re-proposed
  const RdmaBatchProposal kept = proposeRdmaBatch(s, sh);
  EXPECT_EQ(kept.bytes, 32 << 10);
  EXPECT_FALSE(kept.changed());
  Scenario one = issueShape(128);  // one server: no partial crosses a NIC
  one.cluster.servers = 1;
  one.rings.combine = someTiling();
  one.combine.rdmaBatchBytes = 512 << 10;
  EXPECT_EQ(proposeRdmaBatch(one).bytes, 512 << 10);
}

// Each role's time (and so the stage's) does not fall when the work grows.
void expectNoFaster(const StagePrediction& small, const StagePrediction& large, const char* what) {
  EXPECT_GE(large.senderNs, small.senderNs) << what;
  EXPECT_GE(large.forwarderNs, small.forwarderNs) << what;
  EXPECT_GE(large.receiverNs, small.receiverNs) << what;
  EXPECT_GT(large.stageNs(), small.stageNs()) << what;
}

TEST(RoleThroughput, RoleTimesGrowWithHiddenTopkAndServers) {
  for (RingStage stage : {RingStage::Dispatch, RingStage::Combine}) {
    Scenario base = issueShape(256);
    base.routing.kind = RoutingKind::Uniform;
    const RingTiling t = someTiling();
    const StagePrediction p0 = predictStage(base, routingShares(base), stage, t);

    Scenario wide = base;
    wide.model.hidden = 2 * base.model.hidden;
    expectNoFaster(p0, predictStage(wide, routingShares(wide), stage, t), "H x2");

    Scenario moreK = base;
    moreK.model.topk = 2 * base.model.topk;
    expectNoFaster(p0, predictStage(moreK, routingShares(moreK), stage, t), "top-k x2");

    // More servers with the same experts: more of each card's tokens cross the NIC.
    Scenario fewer = base;
    fewer.cluster.servers = 2;
    expectNoFaster(predictStage(fewer, routingShares(fewer), stage, t), p0, "servers 2 -> 4");
  }
}

TEST(RoleThroughput, MoreTokensTakeLongerAtEveryRole) {
  for (RingStage stage : {RingStage::Dispatch, RingStage::Combine}) {
    const Scenario a = issueShape(128), b = issueShape(4096);
    expectNoFaster(predictStage(a, routingShares(a), stage, someTiling()),
                   predictStage(b, routingShares(b), stage, someTiling()), "tokens 128 -> 4096");
  }
}

TEST(TilingProposal, FollowsTheTokenCountAtTheIssuesShape) {
  const RingTilings small = proposeTiling(issueShape(128), issueShape(128).placePerRank());
  const RingTilings large = proposeTiling(issueShape(4096), issueShape(4096).placePerRank());
  EXPECT_NE(small, large);
  // Each is the model's best of its own search, and fits.
  for (const Scenario& s : {issueShape(128), issueShape(4096)}) {
    Scenario with = s;
    with.rings = proposeTiling(s, s.placePerRank());
    EXPECT_NO_THROW(validateDispatchTiling(with, s.placePerRank()));
    for (RingStage stage : {RingStage::Dispatch, RingStage::Combine}) {
      const auto ranked = rankTilings(s, s.placePerRank(), stage, 2);
      ASSERT_EQ(ranked.size(), 2u);
      EXPECT_EQ(ranked[0].tiling, with.rings.of(stage));
      EXPECT_LE(ranked[0].prediction.stageNs(), ranked[1].prediction.stageNs() * 1.01);
    }
  }
}

TEST(TilingProposal, IsNoWorseByTheModelThanTheOldFixedSplit) {
  // The old rule: a fifth of the cores per role, queue 8, one tiling for both stages.
  const Scenario s = issueShape(4096);
  RingTiling old = someTiling();
  old.senderCores = old.forwarderCores = old.receiverCores = s.hardware.aivCores / 5;
  const RingTilings proposed = proposeTiling(s, s.placePerRank());
  const RoutingShares sh = routingShares(s);
  for (RingStage stage : {RingStage::Dispatch, RingStage::Combine})
    EXPECT_LE(predictStage(s, sh, stage, proposed.of(stage)).stageNs(),
              predictStage(s, sh, stage, old).stageNs() * 1.01);  // the model's 1% steps
}

}  // namespace
}  // namespace moe
