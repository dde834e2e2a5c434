// moe-sim fidelity's figures (core/studies/fidelity.h): DeepEP's byte counts by hand on a
// tiny routing, the shape list, and one shrunken shape run end to end in payload none.

#include <gtest/gtest.h>

#include "core/machine/hardware_profile.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/fidelity.h"

using namespace moe;

namespace {

std::vector<RankGating> tinyGating(std::vector<std::vector<std::int32_t>> ids) {
  std::vector<RankGating> g(ids.size());
  for (std::size_t r = 0; r < ids.size(); ++r) g[r].topkIds = ids[r];
  return g;
}

}  // namespace

TEST(FidelityBytes, IntranodeCountsTokensRankZeroReceivesOncePerSourceToken) {
  Scenario s;
  s.cluster.servers = 1;
  s.cluster.cardsPerServer = 2;
  s.model.tokensPerRank = 2;
  s.model.topk = 2;
  s.model.experts = 4;  // 2 per rank: rank 0 holds experts 0 and 1
  s.model.hidden = 256;
  s.model.dispatchDtype = DispatchDtype::Fp8;
  // Source 0: token 0 -> experts 0, 1 (rank 0 once, though two experts); token 1 -> 2, 3.
  // Source 1: token 0 -> 0, 2 (rank 0); token 1 -> 3, 2.
  const auto g = tinyGating({{0, 1, 2, 3}, {0, 2, 3, 2}});
  const DeepEpBytes b = normalModeBytes(g, s);
  EXPECT_STREQ(b.link, "HCCS") << "the default profile is an A2 part";
  s.hardware.product = "none";  // the H800: no CANN operators, NVLink
  EXPECT_STREQ(normalModeBytes(g, s).link, "NVLink");
  EXPECT_DOUBLE_EQ(b.combine, 2 * 256 * 2.0);
  EXPECT_DOUBLE_EQ(b.dispatch, 2 * 256 * 2.0 * (1 + 4.0 / 128) / 2);  // = 2 x (256 + 8)
  EXPECT_DOUBLE_EQ(b.dispatch, 2 * (256 + 8.0));
}

TEST(FidelityBytes, InternodeCountsDistinctDestinationServersOwnIncluded) {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 1;
  s.model.tokensPerRank = 2;
  s.model.topk = 2;
  s.model.experts = 4;
  s.model.hidden = 128;
  s.model.dispatchDtype = DispatchDtype::Bf16;
  // Rank 0's token 0 -> experts 0, 1: server 0 only (1); token 1 -> 1, 2: both (2).
  const auto g = tinyGating({{0, 1, 1, 2}, {3, 2, 0, 1}});
  const DeepEpBytes b = normalModeBytes(g, s);
  EXPECT_STREQ(b.link, "RDMA");
  EXPECT_DOUBLE_EQ(b.dispatch, 3 * 128 * 2.0);
  EXPECT_DOUBLE_EQ(b.combine, 3 * 128 * 2.0);
}

TEST(FidelityBytes, LowLatencyCountsEverySelection) {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 1;
  s.model.tokensPerRank = 2;
  s.model.topk = 2;
  s.model.experts = 4;
  s.model.hidden = 256;
  const auto g = tinyGating({{0, 1, 1, 2}, {3, 2, 0, 1}});
  const DeepEpBytes b = lowLatencyBytes(g, s);
  EXPECT_DOUBLE_EQ(b.dispatch, 4 * (256 + 8 + 16.0));
  EXPECT_DOUBLE_EQ(b.combine, 4 * 512.0);
}

TEST(FidelityCases, DeepEpShapesOnTheH800Profile) {
  const auto cases = deepEpCases(builtinProfile("h800-nvswitch"));
  ASSERT_EQ(cases.size(), 10u);
  int calibrations = 0;
  for (const FidelityCase& c : cases) {
    calibrations += c.calibration;
    EXPECT_EQ(c.scenario.payload, PayloadMode::None);
    EXPECT_EQ(c.scenario.model.dispatchDtype, DispatchDtype::Fp8);
    EXPECT_EQ(c.scenario.cluster.ranks(), c.ep);
    EXPECT_EQ(c.scenario.model.tokensPerRank, c.mode == FidelityMode::Normal ? 4096 : 128);
    EXPECT_EQ(c.design, c.mode == FidelityMode::Normal ? Design::Streaming : Design::Flat);
    EXPECT_GT(c.published.dispatchGBps, 0);
    // Every shape is solved exactly but low-latency EP 256 (docs/FIDELITY.md).
    EXPECT_EQ(c.scenario.bandwidthUpdateNs,
              c.mode == FidelityMode::LowLatency && c.ep == 256 ? 20 : 0);
  }
  EXPECT_EQ(calibrations, 1);
  EXPECT_EQ(cases[0].ep, 8);
  EXPECT_TRUE(cases[0].calibration);
  EXPECT_EQ(cases[2].scenario.routing.kind, RoutingKind::GroupLimited);
  EXPECT_EQ(cases[2].scenario.routing.groups, 4);      // EP 32: four servers
  EXPECT_EQ(cases[3].scenario.routing.topkGroups, 4);  // EP 64: top-4 of eight
  EXPECT_EQ(cases.back().ep, 256);
}

// examples/fidelity/ ships every shape as a scenario file (written by `moe-sim fidelity
// --write-scenarios`), and the calibration sweep starts from one of them: they must stay
// the shapes the command runs.
TEST(FidelityCases, ShippedScenarioFilesAreTheShapes) {
  for (const FidelityCase& c : deepEpCases(builtinProfile("h800-nvswitch"))) {
    const std::string path =
        std::string(MOE_SOURCE_DIR) + "/examples/fidelity/" + c.scenario.name + ".json";
    EXPECT_EQ(scenarioToJson(loadScenarioFile(path)), scenarioToJson(c.scenario))
        << path << " differs from the shape; rewrite it with moe-sim fidelity --write-scenarios";
  }
}

TEST(FidelityRun, AShrunkenLowLatencyShapeRunsAndARefusedOneSaysWhy) {
  FidelityCase c = deepEpCases(builtinProfile("h800-nvswitch"))[5];  // low latency, EP 16
  ASSERT_EQ(c.ep, 16);
  c.scenario.model.tokensPerRank = 4;
  c.scenario.model.hidden = 256;
  const FidelityResult r = runFidelityCase(c);
  ASSERT_TRUE(r.notRun.empty()) << r.notRun;
  EXPECT_GT(r.dispatchUs, 0);
  EXPECT_GT(r.combineUs, 0);
  EXPECT_DOUBLE_EQ(r.bytes.dispatch, 4 * 8 * (256 + 8 + 16.0));
  c.scenario.model.tokensPerRank = 1 << 20;
  const std::string why = runFidelityCase(c).notRun;
  EXPECT_EQ(why.rfind("model.tokens_per_rank", 0), 0u) << why;
}

// The Ascend A3 target: DeepEP-Ascend's shapes, every rank in one UB domain, the flat design,
// INT8 dispatch; each a scenario `validate` accepts.
TEST(FidelityCases, AscendA3ShapesRunFlatInOneUbDomainWithInt8Dispatch) {
  const auto cases = fidelityCases(FidelityTarget::AscendA3);
  std::vector<int> normal, ll;
  for (const FidelityCase& c : cases) {
    (c.mode == FidelityMode::Normal ? normal : ll).push_back(c.ep);
    const Scenario& s = c.scenario;
    EXPECT_EQ(s.profileName, "atlas-a3-superpod");
    EXPECT_EQ(s.hardware.product, "A3");
    EXPECT_EQ(c.design, Design::Flat);
    EXPECT_EQ(s.dispatchImpl, Design::Flat);
    EXPECT_EQ(s.cluster.servers, 1) << "no RDMA tier inside the supernode";
    EXPECT_EQ(s.cluster.ranks(), c.ep);
    EXPECT_EQ(s.model.dispatchDtype, DispatchDtype::Int8);
    EXPECT_EQ(s.model.tokensPerRank, c.mode == FidelityMode::Normal ? 4096 : 128);
    EXPECT_EQ(c.published.dispatchGBps, 0) << "the A3 measurements are held out";
    EXPECT_NO_THROW(checkScenario(s)) << s.name;
  }
  EXPECT_EQ(normal, (std::vector<int>{8, 16, 32, 64, 128}));
  EXPECT_EQ(ll, (std::vector<int>{8, 16, 32}));
  EXPECT_EQ(fidelityTargetFromName("ascend-a3"), FidelityTarget::AscendA3);
  EXPECT_EQ(fidelityTargetFromName("h800"), FidelityTarget::H800);
  EXPECT_FALSE(fidelityTargetFromName("a3"));
}

TEST(FidelityBytes, Int8CountsOneScalePerToken) {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 1;
  s.model.tokensPerRank = 2;
  s.model.topk = 2;
  s.model.experts = 4;
  s.model.hidden = 256;
  s.model.dispatchDtype = DispatchDtype::Int8;
  const auto g = tinyGating({{0, 1, 1, 2}, {3, 2, 0, 1}});
  const DeepEpBytes b = lowLatencyBytes(g, s);
  EXPECT_DOUBLE_EQ(b.dispatch, 4 * (256 + 4 + 16.0));
  EXPECT_DOUBLE_EQ(b.combine, 4 * 512.0);
}
