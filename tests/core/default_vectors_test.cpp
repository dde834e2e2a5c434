// The default vector export (defaultVectorScenario) holds what makes a wrong kernel fail:
// an eplb_table with replicas where ceil and floor differ, both balance modes, a scale
// exactly on its pruning bound, pruned active slots and masked tokens; and its manifest
// states the semantics and device-API arguments a kernel author needs.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/studies/vector_export.h"
#include "core/util/format_digest.h"
#include "core/util/npy.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class DefaultVectors : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("moe_default_vectors_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  json exportDefault(const std::string& sub = "v") {
    moe::exportVectors(moe::defaultVectorScenario(), (dir_ / sub).string());
    std::ifstream in(dir_ / sub / "manifest.json");
    return json::parse(in);
  }
  moe::NpyArray load(const std::string& op, int rank, const std::string& arg) {
    return moe::readNpy(
        (dir_ / "v" / op / ("rank" + std::to_string(rank)) / (arg + ".npy")).string());
  }

  fs::path dir_;
};

TEST_F(DefaultVectors, TheTableHasReplicasWhereCeilAndFloorDiffer) {
  exportDefault();
  const moe::NpyArray t = load("moe_update_expert", 0, "eplb_table");
  ASSERT_EQ(t.shape.size(), 2u);
  const auto v = t.as<std::int32_t>();
  const std::size_t F = t.shape[1];
  const int world = 16;
  bool replicas = false, ceilNotFloor = false, identity = true;
  for (std::size_t e = 0; e < t.shape[0]; ++e) {
    const int count = v[e * F];
    replicas = replicas || count > 1;
    ceilNotFloor = ceilNotFloor || world % count != 0;
    identity = identity && count == 1 && v[e * F + 1] == static_cast<int>(e);
  }
  EXPECT_TRUE(replicas);
  EXPECT_TRUE(ceilNotFloor);
  EXPECT_FALSE(identity);
}

TEST_F(DefaultVectors, BothBalanceModesAreExportedForEveryRank) {
  const json m = exportDefault();
  std::map<std::string, std::vector<int>> modes;  // op -> balance_mode per rank
  for (const json& op : m.at("operators")) {
    const std::string name = op.at("op");
    if (name.rfind("moe_update_expert", 0) == 0)
      modes[name].push_back(op.at("attrs").at("balance_mode").get<int>());
  }
  EXPECT_EQ(modes["moe_update_expert"], std::vector<int>(16, 1));
  EXPECT_EQ(modes["moe_update_expert_balance_mode0"], std::vector<int>(16, 0));
  // The two modes give other ids on the same inputs: the second set checks something.
  bool differ = false;
  for (int r = 0; r < 16; ++r)
    differ =
        differ ||
        load("moe_update_expert", r, "balanced_expert_ids").as<std::int32_t>() !=
            load("moe_update_expert_balance_mode0", r, "balanced_expert_ids").as<std::int32_t>();
  EXPECT_TRUE(differ);
}

// Each listed boundary slot really has scale == threshold[k] * (fp32 sum in k order), is
// kept; and the threshold prunes some active slots.
TEST_F(DefaultVectors, AScaleLiesExactlyOnItsPruningBoundAndIsKept) {
  const json m = exportDefault();
  int boundary = 0, prunedActive = 0;
  for (const json& op : m.at("operators")) {
    if (op.at("op") != "moe_update_expert") continue;
    const int r = op.at("rank");
    const auto scales = load("moe_update_expert", r, "expert_scales").as<float>();
    const auto threshold = load("moe_update_expert", r, "pruning_threshold").as<float>();
    const auto active = load("moe_update_expert", r, "active_mask").as<std::uint8_t>();
    const auto keep = load("moe_update_expert", r, "balanced_active_mask").as<std::uint8_t>();
    const std::size_t K = threshold.size();
    for (const json& slot : op.at("pruning_boundary_slots")) {
      const std::size_t t = slot.at(0), k = slot.at(1);
      float sum = 0.0f;
      for (std::size_t j = 0; j < K; ++j) sum += scales[t * K + j];
      const float bound = threshold[k] * sum;
      EXPECT_EQ(scales[t * K + k], bound) << "rank " << r << " slot " << slot.dump();
      EXPECT_EQ(keep[t * K + k], 1) << "rank " << r << " slot " << slot.dump();
      ++boundary;
    }
    for (std::size_t i = 0; i < keep.size(); ++i) prunedActive += active[i / K] && !keep[i];
  }
  EXPECT_GE(boundary, 1);
  EXPECT_GT(prunedActive, 0);
}

TEST_F(DefaultVectors, SomeTokensAreMaskedAndTheirSlotsAreNeitherKeptNorSent) {
  exportDefault();
  for (int r = 0; r < 16; ++r) {
    const auto active = load("moe_update_expert", r, "active_mask").as<std::uint8_t>();
    const auto keep = load("moe_update_expert", r, "balanced_active_mask").as<std::uint8_t>();
    const auto topk = load("get_dispatch_layout", r, "topk_idx").as<std::int64_t>();
    const auto ids = load("moe_update_expert", r, "balanced_expert_ids").as<std::int32_t>();
    const auto xMask = load("moe_distribute_dispatch", r, "x_active_mask").as<std::uint8_t>();
    std::size_t masked = 0;
    for (std::uint8_t a : active) masked += !a;
    EXPECT_GT(masked, 0u) << "rank " << r;
    EXPECT_LT(masked, active.size()) << "rank " << r;
    const std::size_t K = keep.size() / active.size();
    for (std::size_t i = 0; i < keep.size(); ++i) {
      if (!active[i / K]) {
        EXPECT_EQ(keep[i], 0) << "rank " << r << " slot " << i;
      }
      EXPECT_EQ(topk[i], keep[i] ? ids[i] : -1) << "rank " << r << " slot " << i;
      EXPECT_EQ(xMask[i], keep[i]) << "rank " << r << " slot " << i;
    }
  }
}

TEST_F(DefaultVectors, ManifestStatesSemanticsAndDeviceArguments) {
  const json m = exportDefault();
  const json& s = m.at("semantics");
  for (const char* op : {"moe_update_expert", "get_dispatch_layout", "moe_distribute_dispatch",
                         "moe_distribute_combine", "device_api"})
    EXPECT_TRUE(s.contains(op)) << op;
  EXPECT_NE(s.at("moe_update_expert").at("pruning").get<std::string>().find(">="),
            std::string::npos);
  EXPECT_NE(s.at("moe_update_expert").at("balance_mode_0").get<std::string>().find("ceil"),
            std::string::npos);
  EXPECT_NE(
      s.at("moe_distribute_combine").at("summation_order").get<std::string>().find("ascending"),
      std::string::npos);
  int dispatchOps = 0, combineOps = 0;
  for (const json& op : m.at("operators")) {
    const json& a = op.at("attrs");
    if (op.at("op") == "moe_distribute_dispatch") {
      ++dispatchOps;
      EXPECT_EQ(a.at("global_bs"), 32 * 16);
      EXPECT_EQ(a.at("quant_mode"), 0);
      EXPECT_EQ(a.at("shared_expert_rank_num"), 0);
      EXPECT_EQ(a.at("shared_expert_num"), 0);
      EXPECT_EQ(a.at("tp_world_size"), 1);
      EXPECT_EQ(a.at("moe_expert_num"), 48);  // 32 experts + 16 redundant
      EXPECT_EQ(a.at("local_expert_num"), 3);
    }
    if (op.at("op") == "moe_distribute_combine") {
      ++combineOps;
      EXPECT_EQ(a.at("global_bs"), 32 * 16);
      EXPECT_EQ(a.at("comm_quant_mode"), 0);
      EXPECT_FALSE(a.contains("quant_mode"));  // a dispatch argument only
    }
  }
  EXPECT_EQ(dispatchOps, 16);
  EXPECT_EQ(combineOps, 16);
}

TEST_F(DefaultVectors, VectorsDigestIsStableAndFollowsTheContents) {
  const json a = exportDefault("a");
  const json b = exportDefault("b");
  EXPECT_EQ(a.at("vectors_digest"), b.at("vectors_digest"));
  EXPECT_EQ(a.at("vectors_digest").get<std::string>().size(), 16u);
  moe::Scenario other = moe::defaultVectorScenario();
  other.eplb.pruningThreshold.back() = 0.25f;
  const moe::VectorExportResult r = moe::exportVectors(other, (dir_ / "c").string());
  EXPECT_NE(moe::formatDigest(r.vectorsDigest), a.at("vectors_digest").get<std::string>());
  // The run digest of the same export is the run's, unchanged by the vectors digest.
  EXPECT_EQ(a.at("digest"), b.at("digest"));
}

}  // namespace
