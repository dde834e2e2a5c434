// The design registry has one entry per row of the design table, in its order: its names
// are the scenario's spellings, its stages are what a run reports, and its knob lists are
// honest: a scenario field outside a design's list leaves that design's run unchanged, byte
// for byte.

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/run/design_registry.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/scenario/scenario_json.h"
#include "small_streaming_scenario.h"

namespace {

using moe::Design;
using moe::DesignEntry;
using nlohmann::json;

TEST(DesignRegistry, EveryRowOfTheDesignTableHasOneEntryInTheSameOrder) {
  const std::vector<DesignEntry>& registry = moe::designRegistry();
  ASSERT_EQ(registry.size(), std::size(moe::kDesigns));
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const DesignEntry& e = registry[i];
    const moe::DesignInfo& row = moe::kDesigns[i];
    EXPECT_EQ(e.design, row.design) << row.name << " is out of the table's order";
    EXPECT_EQ(&moe::designEntry(row.design), &e);
    EXPECT_EQ(e.name, row.name);
    EXPECT_EQ(e.workload, row.workload) << e.name;
    EXPECT_FALSE(e.stages.empty()) << e.name;
    EXPECT_FALSE(e.description.empty()) << e.name;
    if (e.workload != moe::WorkloadKind::MoeLayer) continue;
    ASSERT_NE(e.memory, nullptr) << e.name << " needs a memory rule";
    // dispatch_impl runs the design alone under its own name.
    moe::Scenario sc;
    sc.dispatchImpl = *moe::DesignSelection::fromName(e.name);
    EXPECT_EQ(moe::scenarioDesigns(sc), std::vector<Design>{e.design});
  }
}

// Each MoE-layer design brings its own dispatch and combine (the kernels its row declares,
// named after it) between the stages every design shares.
TEST(DesignRegistry, EachLayerDesignHasItsOwnDispatchAndCombine) {
  std::set<moe::LayerLaunch> dispatches, combines;
  const std::vector<Design> layerDesigns = moe::designsOf(moe::WorkloadKind::MoeLayer);
  for (Design d : layerDesigns) {
    const DesignEntry& e = moe::designEntry(d);
    ASSERT_EQ(e.stages.size(), 6U) << e.name;
    const std::string name(e.name);
    const moe::DesignStage& dispatch = e.stages[3];
    const moe::DesignStage& combine = e.stages[5];
    EXPECT_EQ(dispatch.id, moe::StageId::Dispatch) << name;
    EXPECT_EQ(dispatch.name, "dispatch-" + name);
    EXPECT_EQ(combine.id, moe::StageId::Combine) << name;
    EXPECT_EQ(combine.name, "combine-" + name);
    for (const moe::DesignStage& s : e.stages) {
      EXPECT_NE(s.layer, nullptr) << name << " " << s.name;
      EXPECT_EQ(s.fused, nullptr) << name << " " << s.name;
    }
    dispatches.insert(dispatch.layer);
    combines.insert(combine.layer);
  }
  EXPECT_EQ(dispatches.size(), layerDesigns.size());
  EXPECT_EQ(combines.size(), layerDesigns.size());
}

// A design whose combine is the streaming one reads the streaming combine's knobs, and no
// other design does: the verification reads bf16 partials and summed rows off these lists.
TEST(DesignRegistry, TheStreamingCombineKnobsBelongToTheStreamingCombineDesigns) {
  for (const DesignEntry& e : moe::designRegistry()) {
    const bool streaming = moe::designInfo(e.design).streamingCombine;
    EXPECT_EQ(e.reads("combine.partial_dtype"), streaming) << e.name;
    EXPECT_EQ(e.reads("combine.sum_local_experts"), streaming) << e.name;
  }
}

TEST(DesignRegistry, ARunReportsExactlyTheRegisteredStages) {
  moe::Scenario layer = moe::test::smallStreamingScenario(2, 2);
  layer.payload = moe::PayloadMode::None;
  moe::Scenario fused;
  fused.workload.kind = moe::WorkloadKind::AlltoallMatmulRs;
  fused.workload.ranks = 4, fused.workload.m = 64, fused.workload.n = 64, fused.workload.k = 256;
  fused.workload.tileM = 16, fused.workload.tileN = 32, fused.workload.tileK = 32;
  for (const DesignEntry& e : moe::designRegistry()) {
    const auto rs =
        moe::ResolvedScenario::resolve(e.workload == moe::WorkloadKind::MoeLayer ? layer : fused);
    auto run = moe::makeRun(rs, e.design);
    run->runToEnd();
    ASSERT_TRUE(run->finished()) << e.name;
    ASSERT_EQ(run->stages().size(), e.stages.size()) << e.name;
    for (std::size_t i = 0; i < e.stages.size(); ++i) {
      EXPECT_EQ(run->stages()[i].id, e.stages[i].id) << e.name;
      EXPECT_EQ(run->stages()[i].name, e.stages[i].name) << e.name;
    }
  }
}

// A value different from the small scenario's for every knob any design lists.
const std::map<std::string, json> kPerturbed = {
    {"rings.chunk_bytes", 4096},
    {"rings.queue_chunks", 8},
    {"rings.sender_cores", 3},
    {"rings.forwarder_cores", 4},
    {"rings.receiver_cores", 3},
    {"combine.rdma_batch_bytes", 0},
    {"combine.partial_dtype", "bf16"},
    {"combine.ub_window_rows", 4},
    {"combine.sum_local_experts", true},
    {"workload.tile_m", 32},
    {"workload.tile_n", 64},
    {"workload.tile_k", 64},
    {"workload.stages", 1},
};

moe::Scenario withField(const moe::Scenario& sc, const std::string& path, const json& v) {
  json j = moe::scenarioToJson(sc);
  const std::size_t dot = path.find('.');
  j[path.substr(0, dot)][path.substr(dot + 1)] = v;
  return moe::scenarioFromJson(j);
}

TEST(DesignRegistry, AKnobOutsideADesignsListLeavesItsRunUnchanged) {
  moe::Scenario layer = moe::test::smallStreamingScenario(2, 2);
  layer.payload = moe::PayloadMode::None;
  layer.model.tokensPerRank = 24;
  // The fused operator on the same small model: the scenario's ring rules still apply.
  moe::Scenario fused = layer;
  fused.workload.kind = moe::WorkloadKind::AlltoallMatmulRs;
  fused.workload.ranks = 4, fused.workload.m = 128, fused.workload.n = 128, fused.workload.k = 256;
  fused.workload.tileM = 16, fused.workload.tileN = 32, fused.workload.tileK = 32;
  fused.workload.stages = 2;
  for (const auto& [knob, value] : kPerturbed) {
    for (const DesignEntry& e : moe::designRegistry()) {
      const bool listed = std::find(e.knobs.begin(), e.knobs.end(), knob) != e.knobs.end();
      if (listed) continue;
      const moe::Scenario base = e.workload == moe::WorkloadKind::MoeLayer ? layer : fused;
      auto digestOf = [&](const moe::Scenario& sc) {
        auto run = moe::makeRun(moe::ResolvedScenario::resolve(sc), e.design);
        run->runToEnd();
        return run->digest();
      };
      EXPECT_EQ(digestOf(withField(base, knob, value)), digestOf(base))
          << knob << " changes the " << e.name << " design, which does not list it";
    }
  }
}

}  // namespace
