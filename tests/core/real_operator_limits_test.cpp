// The real CANN operators' documented limits (resources/operators/cann-mc2-limits.json):
// one test per rule, the HCCL_BUFFSIZE formulas against hand-computed values, the table's
// own validation, and the warnings every shipped example scenario gets.

#include "core/plan/real_operator_limits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/machine/hardware_profile.h"
#include "core/plan/real_operator_table.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

namespace moe {
namespace {

Scenario a2(DesignSelection impl = DesignSelection::both()) {
  Scenario sc;  // the default: ascend-910b3, 2 x 8 cards, BS 128, H 7168, 64 experts, top-8
  sc.dispatchImpl = impl;
  return sc;
}

Scenario a3() {
  Scenario sc;
  sc.profileName = "atlas-a3-die";
  sc.hardware = builtinProfile("atlas-a3-die");
  return sc;
}

// The messages of the warnings naming field.
std::vector<std::string> messagesFor(const Scenario& sc, const std::string& field) {
  std::vector<std::string> out;
  for (const auto& w : realOperatorWarnings(sc))
    if (w.field == field) out.push_back(w.message);
  return out;
}

bool anyContains(const std::vector<std::string>& messages, const std::string& text) {
  return std::any_of(messages.begin(), messages.end(),
                     [&](const std::string& m) { return m.find(text) != std::string::npos; });
}

TEST(RealOperatorLimits, ProfilesNameTheirProduct) {
  EXPECT_EQ(builtinProfile("ascend-910b3").product, "A2");
  EXPECT_EQ(builtinProfile("ascend-910b2").product, "A2");
  EXPECT_EQ(builtinProfile("atlas-a3-die").product, "A3");
  EXPECT_EQ(builtinProfile("h800-nvswitch").product, "none");
}

TEST(RealOperatorLimits, DefaultScenarioIsWithinEveryLimit) {
  EXPECT_TRUE(realOperatorWarnings(a2()).empty());
  EXPECT_TRUE(realOperatorWarnings(a2(DesignSelection::all())).empty());
  EXPECT_TRUE(realOperatorWarnings(a3()).empty());
}

TEST(RealOperatorLimits, A2FullmeshBatchAtMost256) {
  Scenario sc = a2(Design::Flat);
  sc.model.tokensPerRank = 512;
  const auto m = messagesFor(sc, "model.tokens_per_rank");
  ASSERT_EQ(m.size(), 2u);  // dispatch and combine
  EXPECT_EQ(m[0],
            "the real MoeDistributeDispatchV2 on A2 (commAlg fullmesh) accepts BS <= 256; this "
            "scenario has 512");
  EXPECT_TRUE(anyContains(m, "MoeDistributeCombineV2 on A2 (commAlg fullmesh)"));
  // The hierarchical designs map to commAlg hierarchy, which takes BS up to 512.
  sc.dispatchImpl = DesignSelection::both();
  EXPECT_TRUE(messagesFor(sc, "model.tokens_per_rank").empty());
}

TEST(RealOperatorLimits, A2HierarchyBatchAtMost512) {
  Scenario sc = a2();
  sc.model.tokensPerRank = 1024;
  const auto m = messagesFor(sc, "model.tokens_per_rank");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(anyContains(m, "(commAlg hierarchy) accepts BS <= 512; this scenario has 1024"));
}

TEST(RealOperatorLimits, A2HierarchyEpWorldSize16To64) {
  Scenario sc = a2();
  sc.cluster.servers = 16;  // 128 ranks
  const auto m = messagesFor(sc, "cluster.servers x cluster.cards_per_server");
  ASSERT_FALSE(m.empty());
  EXPECT_TRUE(anyContains(m, "accepts epWorldSize one of 16, 32, 64; this scenario has 128"));
  sc.dispatchImpl = Design::Flat;  // fullmesh lists 128
  EXPECT_TRUE(messagesFor(sc, "cluster.servers x cluster.cards_per_server").empty());
}

TEST(RealOperatorLimits, A2FullmeshEpWorldSizeFromItsList) {
  Scenario sc = a2(Design::Flat);
  sc.cluster.servers = 3;  // 24 ranks: not in 2..8, 16, 32, ...
  const auto m = messagesFor(sc, "cluster.servers x cluster.cards_per_server");
  EXPECT_TRUE(anyContains(m,
                          "(commAlg fullmesh) accepts epWorldSize one of 2, 3, 4, 5, 6, 7, 8, "
                          "16, 32, 64, 128, 192, 256, 384; this scenario has 24"));
}

TEST(RealOperatorLimits, A2ServerCountTwoFourOrEight) {
  Scenario sc = a2(Design::Flat);
  sc.cluster.servers = 3;
  EXPECT_TRUE(anyContains(messagesFor(sc, "cluster.servers"),
                          "accepts serverNum (more than one server) one of 2, 4, 8; this "
                          "scenario has 3"));
  sc.cluster.servers = 1;  // one server: the rule does not apply
  EXPECT_TRUE(messagesFor(sc, "cluster.servers").empty());
}

TEST(RealOperatorLimits, A2MoeExpertNumByCommAlg) {
  Scenario sc = a2(DesignSelection::all());
  sc.model.experts = 768;
  auto m = messagesFor(sc, "model.experts");
  EXPECT_TRUE(anyContains(m,
                          "(commAlg hierarchy) accepts moeExpertNum in [1, 512]; this "
                          "scenario has 768"));
  EXPECT_FALSE(anyContains(m, "fullmesh"));
  sc.model.experts = 2048;
  EXPECT_TRUE(anyContains(messagesFor(sc, "model.experts"),
                          "(commAlg fullmesh) accepts moeExpertNum in [1, 1024]"));
}

TEST(RealOperatorLimits, RedundantExpertsCountAsInstances) {
  Scenario sc = a2();
  sc.model.experts = 512;
  sc.eplb.redundantExperts = 16;  // 528 instances
  EXPECT_TRUE(anyContains(messagesFor(sc, "model.experts + eplb.redundant_experts"),
                          "accepts moeExpertNum in [1, 512]; this scenario has 528"));
}

TEST(RealOperatorLimits, A2HiddenRangeAndMultipleOf32) {
  Scenario sc = a2();
  sc.model.hidden = 12288;
  EXPECT_TRUE(anyContains(messagesFor(sc, "model.hidden"), "accepts H in [32, 10240]"));
  sc.model.hidden = 7176;
  EXPECT_TRUE(anyContains(messagesFor(sc, "model.hidden"),
                          "accepts H a multiple of 32; this scenario has 7176"));
}

TEST(RealOperatorLimits, TopkAtMost16) {
  Scenario sc = a2();
  sc.model.topk = 32;
  EXPECT_TRUE(anyContains(messagesFor(sc, "model.topk"), "accepts K in [1, 16]"));
  Scenario s3 = a3();
  s3.model.topk = 32;
  EXPECT_TRUE(anyContains(messagesFor(s3, "model.topk"), "MoeDistributeDispatchV2 on A3"));
}

TEST(RealOperatorLimits, Fp8DispatchIsNotARealQuantMode) {
  Scenario sc = a2();
  sc.model.dispatchDtype = DispatchDtype::Fp8;
  const auto m = messagesFor(sc, "model.dispatch_dtype");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("bf16, fp16 or int8; this scenario has fp8"), std::string::npos) << m[0];
}

TEST(RealOperatorLimits, A2CombineTakesNoSharedExpert) {
  Scenario sc = a2();
  sc.combine.sharedExpert = true;
  EXPECT_TRUE(anyContains(messagesFor(sc, "combine.shared_expert"),
                          "the real MoeDistributeCombineV2 on A2 (commAlg hierarchy) does not "
                          "support a shared expert"));
  Scenario s3 = a3();
  s3.combine.sharedExpert = true;  // A3 takes it as sharedExpertX
  EXPECT_TRUE(realOperatorWarnings(s3).empty());
}

TEST(RealOperatorLimits, CombineAddRmsNormIsA3Only) {
  Scenario sc = a2();
  sc.combine.addRmsNorm = true;
  const auto m = messagesFor(sc, "combine.add_rms_norm");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0],
            "the real MoeDistributeCombineAddRmsNorm is not documented for A2; this scenario "
            "calls it");
  Scenario s3 = a3();
  s3.combine.addRmsNorm = true;
  EXPECT_TRUE(realOperatorWarnings(s3).empty());
}

TEST(RealOperatorLimits, UpdateExpertIsA3OnlyAndOnlyWhenExpertsAreRemapped) {
  Scenario sc = a2();
  EXPECT_TRUE(realOperatorWarnings(sc).empty());  // identity mapping: no MoeUpdateExpert
  sc.eplb.pruningThreshold = std::vector<float>(8, 0.05f);
  EXPECT_EQ(messagesFor(sc, "eplb.pruning_threshold"),
            std::vector<std::string>{
                "the real MoeUpdateExpert is not documented for A2; this scenario calls it"});
  sc.eplb.tableFrom = EplbTableSource::ExpectedLoad;
  EXPECT_EQ(messagesFor(sc, "eplb.table_from").size(), 1u);
}

TEST(RealOperatorLimits, A3Ranges) {
  Scenario sc = a3();
  sc.model.hidden = 512;
  EXPECT_TRUE(anyContains(messagesFor(sc, "model.hidden"), "on A3 accepts H in [1024, 8192]"));
  sc = a3();
  sc.model.tokensPerRank = 1024;
  EXPECT_TRUE(anyContains(messagesFor(sc, "model.tokens_per_rank"), "accepts BS in [1, 512]"));
  sc = a3();
  sc.cluster.servers = 100;  // 800 dies
  EXPECT_TRUE(anyContains(messagesFor(sc, "cluster.servers x cluster.cards_per_server"),
                          "accepts epWorldSize in [2, 768]; this scenario has 800"));
}

TEST(RealOperatorLimits, A3LocalExpertsTimesEpAtMost2048) {
  Scenario sc = a3();
  sc.eplb.placePerRank = 160;  // 160 x 16 = 2560 instances
  EXPECT_TRUE(anyContains(messagesFor(sc, "eplb.place_per_rank"),
                          "accepts localExpertNum * epWorldSize in [1, 2048]; this scenario has "
                          "2560"));
}

TEST(RealOperatorLimits, A3UpdateExpertInstancesAtMost1024) {
  Scenario sc = a3();
  sc.model.experts = 1024;
  sc.eplb.redundantExperts = 64;  // 1088 instances, and MoeUpdateExpert is called
  const auto m = messagesFor(sc, "model.experts + eplb.redundant_experts");
  EXPECT_TRUE(anyContains(m,
                          "the real MoeUpdateExpert on A3 accepts place_per_rank * world_size "
                          "in [1, 1024]; this scenario has 1088"));
}

TEST(RealOperatorLimits, NoAscendProductOrFusedWorkloadHasNone) {
  Scenario sc = a2();
  sc.hardware = builtinProfile("h800-nvswitch");
  sc.model.tokensPerRank = 4096;
  EXPECT_TRUE(realOperatorWarnings(sc).empty());
  EXPECT_EQ(hcclBuffsizeLine(sc), "");
  Scenario fused = a2();
  fused.model.tokensPerRank = 4096;
  fused.workload.kind = WorkloadKind::AlltoallMatmulRs;
  EXPECT_TRUE(realOperatorWarnings(fused).empty());
}

// Hand computations of the documented formulas for BS 128, H 7168, K 8, 16 ranks, 4 experts
// per rank (1 MB = 2^20 B, rounded up):
//  hierarchy: (64 + 16/4) * Align512(128 * (7168*2 + 16*8)) + 8 MB = 128.06 MB -> 129
//  fullmesh:  2 * (128 * 16 * min(4, 8) * 7168 * 2 + 2 MB) = 228 MB
//  A3:        2 * (4*128*16*Align512(14336 + 64) + 8*128*Align512(14336)) = 260 MB
//  A3 AddRmsNorm: 2 MB + 2 * 128 * 2 * (7168 + 128) * (16*4 + 8 + 1) -> 263 MB
TEST(RealOperatorLimits, HcclBuffsizeFormulas) {
  auto needs = hcclBuffsizeNeeds(a2(DesignSelection::all()));
  ASSERT_EQ(needs.size(), 2u);
  EXPECT_EQ(needs[0].commAlg, "hierarchy");
  EXPECT_EQ(needs[0].megabytes, 129);
  EXPECT_EQ(needs[0].op, "MoeDistributeDispatchV2");
  EXPECT_EQ(needs[1].commAlg, "fullmesh");
  EXPECT_EQ(needs[1].megabytes, 228);
  needs = hcclBuffsizeNeeds(a3());
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].megabytes, 260);
  Scenario rms = a3();
  rms.combine.addRmsNorm = true;
  needs = hcclBuffsizeNeeds(rms);
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].megabytes, 263);
  EXPECT_EQ(needs[0].op, "MoeDistributeCombineAddRmsNorm");
  EXPECT_EQ(hcclBuffsizeLine(a2()),
            "real CANN operators on A2: HCCL_BUFFSIZE >= 129 MB per card (commAlg hierarchy, set "
            "by "
            "MoeDistributeDispatchV2)");
}

TEST(RealOperatorLimits, TableEntriesNameTheirSource) {
  const auto& table = realOperatorTable();
  ASSERT_FALSE(table.empty());
  for (const auto& e : table) EXPECT_FALSE(e.source.empty()) << e.op;
}

TEST(RealOperatorLimits, MalformedTableNamesThePath) {
  try {
    parseRealOperatorTable(R"({"entries": [{"operator": "MoeDistributeDispatchV2",
        "product": "A2", "source": "doc", "limits": [{"quantity": "bs", "label": "BS",
        "max": "256"}]}]})");
    FAIL() << "a string bound was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "entries[0].limits[0].max");
  }
  EXPECT_THROW(parseRealOperatorTable(R"({"entries": [{"operator": "MoeDispatch",
        "product": "A2", "source": "doc"}]})"),
               InputError);
  EXPECT_THROW(parseRealOperatorTable(R"({"entries": [{"operator": "MoeUpdateExpert",
        "product": "A2", "source": ""}]})"),
               InputError);
}

// The shipped example scenarios and the warnings each gets (by field). Only the two that
// remap experts call MoeUpdateExpert, which the documents give for A3 only.
TEST(RealOperatorLimits, ShippedExamplesWarnAsExpected) {
  namespace fs = std::filesystem;
  const std::map<std::string, std::vector<std::string>> expected = {
      {"hotspot-redundant-experts.json", {"eplb.table_from"}},
      {"pruned-by-token.json", {"eplb.pruning_threshold"}},
      // The tuner's full-shape question: more tokens than the A2 operators take (BS <= 512).
      {"4x8-4096-tokens-payload-none.json", {"model.tokens_per_rank", "model.tokens_per_rank"}},
  };
  int checked = 0;
  for (const char* dir : {"examples/scenarios", "examples/fidelity"}) {
    for (const auto& f : fs::directory_iterator(fs::path(MOE_SOURCE_DIR) / dir)) {
      const std::string name = f.path().filename().string();
      if (f.path().extension() != ".json" || name.starts_with("calibration")) continue;
      std::vector<std::string> fields;
      for (const auto& w : realOperatorWarnings(loadScenarioFile(f.path().string())))
        fields.push_back(w.field);
      const auto it = expected.find(name);
      EXPECT_EQ(fields, it == expected.end() ? std::vector<std::string>{} : it->second) << name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 16);
}

}  // namespace
}  // namespace moe
