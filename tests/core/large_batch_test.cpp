// DeepEP-scale batches: more tokens per rank than MoeUpdateExpert's 512, so the layer runs
// UpdateExpert on slices and the dispatch kernels stage routing in UB window by window.
// Small hidden sizes and few experts keep these cheap; the big shapes are in the benchmarks.

#include <gtest/gtest.h>

#include "core/run/layer_args.h"
#include "core/run/layer_run.h"
#include "core/run/reference_chain.h"

using namespace moe;

namespace {

Scenario largeBatch(int tokens, PayloadMode payload) {
  Scenario s;
  s.name = "large-batch";
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 2;
  s.hardware.cardsPerServer = 2;
  s.model.tokensPerRank = tokens;
  s.model.hidden = 16;  // 32-B rows
  s.model.topk = 2;
  s.model.experts = 8;
  s.model.intermediate = 16;
  s.payload = payload;
  s.rings.setBoth(RingTiling{4096, 4, 2, 1, 2});
  return s;
}

void expectRunMatchesReference(const Scenario& s, Design impl) {
  auto gating = std::make_shared<const std::vector<RankGating>>(generateGating(s));
  const ReferenceLayer ref = computeReference(ResolvedScenario::resolve(s, gating));
  LayerRun run(ResolvedScenario::resolve(s, gating), impl);
  run.runToEnd();
  ASSERT_TRUE(run.finished()) << run.emulation().deadlockDiagnosis();
  const auto checks = run.verify(ref);
  EXPECT_FALSE(checks.empty());
  for (const VerificationCheck& c : checks) EXPECT_TRUE(c.ok) << c.name << ": " << c.detail;
}

}  // namespace

TEST(LargeBatch, UpdateExpertSlicesCoverTheBatchIn512TokenPieces) {
  const auto one = updateExpertSlices(512);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].begin, 0);
  EXPECT_EQ(one[0].end, 512);
  const auto three = updateExpertSlices(1100);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[1].begin, 512);
  EXPECT_EQ(three[1].end, 1024);
  EXPECT_EQ(three[2].end, 1100);
}

TEST(LargeBatch, ByTokenBalancingCountsTokensFromEachSlicesStart) {
  // One expert on 3 instances, balance mode 1: token t of a slice takes instance t mod 3.
  Scenario s = largeBatch(1100, PayloadMode::None);
  s.model.experts = 2;
  s.model.topk = 1;
  s.eplb.balanceMode = 1;
  s.eplb.table = {{3, 0, 1, 2}, {1, 3, -1, -1}};  // 4 ranks x 1 instance
  RankGating g;
  g.topkIds.assign(1100, 0);
  g.topkWeights.assign(1100, 1.0f);
  const UpdateExpertResult u = layerUpdateExpert(s, g, 0);
  ASSERT_EQ(u.balancedIds.size(), 1100u);
  EXPECT_EQ(u.balancedIds[511], 511 % 3);
  EXPECT_EQ(u.balancedIds[512], 0);  // the second slice starts again (512 mod 3 would be 2)
  EXPECT_EQ(u.balancedIds[1024 + 5], 5 % 3);
}

TEST(LargeBatch, FourThousandTokensOnTwoServersFullPayloadMatchReferenceInBothDesigns) {
  Scenario s = largeBatch(4096, PayloadMode::Full);
  // Pruning with active tokens ending inside a later slice exercises the sliced keep-mask.
  s.eplb.pruningThreshold.assign(s.model.topk, 0.3f);
  s.eplb.activeTokens = 4096 - 700;
  expectRunMatchesReference(s, Design::Streaming);
  expectRunMatchesReference(s, Design::Phased);
}

TEST(LargeBatch, EightThousandTokensPayloadNoneRunsTheProtocolAndMatchesCounts) {
  const Scenario s = largeBatch(8192, PayloadMode::None);
  expectRunMatchesReference(s, Design::Streaming);
}
