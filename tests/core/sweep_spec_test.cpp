// Sweep files: ranges expand as documented, points enumerate row-major (last axis fastest),
// a point's values land in its scenario, and a bad value is an InputError naming the
// scenario field (what makes the point's row "invalid" instead of failing the sweep).

#include <gtest/gtest.h>

#include "core/machine/hardware_profile.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/sweep_point.h"
#include "core/studies/sweep_row.h"
#include "core/studies/sweep_spec.h"
#include "core/util/error.h"
#include "core/util/parallel_map.h"

namespace moe {
namespace {

using nlohmann::json;

SweepSpec spec(const json& axes, const json& extra = json::object()) {
  json j = extra;
  j["axes"] = axes;
  return sweepFromJson(j, ".");
}

TEST(SweepSpec, RangesExpandAsDocumented) {
  const SweepSpec s = spec(json::array({
      {{"field", "rings.queue_chunks"}, {"range", {{"from", 2}, {"to", 8}, {"step", 3}}}},
      {{"field", "routing.alpha"}, {"range", {{"from", 0.0}, {"to", 0.3}, {"step", 0.1}}}},
      {{"field", "rings.chunk_bytes"}, {"range", {{"from", 16384}, {"to", 131072}, {"factor", 2}}}},
      {{"field", "model.tokens_per_rank"}, {"range", {{"from", 64}, {"to", 16}, {"step", -16}}}},
  }));
  ASSERT_EQ(s.axes.size(), 4u);
  EXPECT_EQ(s.axes[0].values, (std::vector<json>{2, 5, 8}));
  ASSERT_EQ(s.axes[1].values.size(), 4u);  // 0.3 is reached despite 3 * 0.1 > 0.3
  EXPECT_DOUBLE_EQ(s.axes[1].values[3].get<double>(), 3 * 0.1);
  EXPECT_EQ(s.axes[2].values, (std::vector<json>{16384, 32768, 65536, 131072}));
  EXPECT_EQ(s.axes[3].values, (std::vector<json>{64, 48, 32, 16}));
  EXPECT_EQ(s.pointCount(), 3u * 4 * 4 * 4);
}

TEST(SweepSpec, PointsAreRowMajorWithTheLastAxisFastest) {
  const SweepSpec s = spec(json::array({
      {{"field", "rings.queue_chunks"}, {"values", {2, 4}}},
      {{"field", "rings.chunk_bytes"}, {"values", {8192, 16384, 32768}}},
  }));
  ASSERT_EQ(s.pointCount(), 6u);
  EXPECT_EQ(sweepPointValues(s, 0), (std::vector<json>{2, 8192}));
  EXPECT_EQ(sweepPointValues(s, 1), (std::vector<json>{2, 16384}));
  EXPECT_EQ(sweepPointValues(s, 3), (std::vector<json>{4, 8192}));
  EXPECT_EQ(sweepPointValues(s, 5), (std::vector<json>{4, 32768}));
  const Scenario sc = sweepPointScenario(s, sweepPointValues(s, 4));
  EXPECT_EQ(sc.rings.dispatch.queueChunks, 4);
  EXPECT_EQ(sc.rings.dispatch.chunkBytes, 16384);
  EXPECT_TRUE(sc.rings.same()) << "a flat ring field sets both stages";
  // Everything else is the base (here the default scenario).
  Scenario expect = defaultScenario();
  expect.rings.setBoth(&RingTiling::queueChunks, 4);
  expect.rings.setBoth(&RingTiling::chunkBytes, 16384);
  EXPECT_EQ(sc, expect);
}

TEST(SweepSpec, HardwareOverridesAndBadValuesNameTheScenarioField) {
  const SweepSpec s = spec(json::array({
      {{"field", "hardware.overrides.hccs_gbps_per_pair"}, {"values", {10.5, -1}}},
  }));
  const Scenario sc = sweepPointScenario(s, sweepPointValues(s, 0));
  EXPECT_DOUBLE_EQ(sc.hardware.hccsGBpsPerPair, 10.5);
  try {
    sweepPointScenario(s, sweepPointValues(s, 1));
    FAIL() << "a negative bandwidth must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "hardware.overrides.hccs_gbps_per_pair");
  }
}

TEST(SweepSpec, OnlyScenarioLeavesAreSweepable) {
  const json base = scenarioToJson(defaultScenario());
  EXPECT_TRUE(isSweepableField(base, "model.hidden"));
  EXPECT_TRUE(isSweepableField(base, "eplb.table"));
  EXPECT_TRUE(isSweepableField(base, "seed"));
  EXPECT_TRUE(isSweepableField(base, "hardware.overrides.nic_gbps"));
  EXPECT_FALSE(isSweepableField(base, "hardware.overrides.not_a_field"));
  EXPECT_FALSE(isSweepableField(base, "hardware.overrides"));
  EXPECT_FALSE(isSweepableField(base, "model"));
  EXPECT_FALSE(isSweepableField(base, "model.hidden.x"));
  EXPECT_FALSE(isSweepableField(base, "dispatch_impl"));
  EXPECT_FALSE(isSweepableField(base, "workload.kind"));
  EXPECT_FALSE(isSweepableField(base, ""));
}

TEST(SweepSpec, DesignsDefaultToTheBaseScenariosAndKeepReportOrder) {
  const json axes = json::array({{{"field", "seed"}, {"values", {1}}}});
  EXPECT_EQ(spec(axes).designs, (std::vector<Design>{Design::Phased, Design::Streaming}));
  EXPECT_EQ(spec(axes, {{"designs", {"streaming", "phased"}}}).designs,
            (std::vector<Design>{Design::Phased, Design::Streaming}));
  const SweepSpec fused = spec(axes, {{"base", {{"workload", {{"kind", "alltoall-matmul-rs"}}}}}});
  EXPECT_EQ(fused.designs, (std::vector<Design>{Design::Pipelined, Design::Sequential}));
  const auto cols = sweepColumns(fused);
  EXPECT_NE(std::find(cols.begin(), cols.end(), "matmul_us"), cols.end());
}

// Points run on several threads at once share the process (the GM chunk pool among
// others): the rows must be those of a one-thread run, byte for byte. (A race in the pool
// once handed two runs the same chunk, and streaming runs deadlocked only under -j 2.)
TEST(SweepRows, ParallelPointsGiveTheRowsOfASequentialRun) {
  json j;
  j["base"] = {{"cluster", {{"servers", 2}, {"cards_per_server", 2}}},
               {"hardware", {{"overrides", {{"cards_per_server", 2}}}}},
               {"model", {{"tokens_per_rank", 16}, {"hidden", 256}, {"experts", 8}, {"topk", 2}}},
               {"rings",
                {{"chunk_bytes", 4096},
                 {"sender_cores", 2},
                 {"forwarder_cores", 2},
                 {"receiver_cores", 2}}}};
  j["axes"] = json::array({{{"field", "rings.queue_chunks"}, {"values", {2, 3, 4, 6}}}});
  j["verify"] = true;
  const SweepSpec s = sweepFromJson(j, ".");
  std::vector<std::string> sequential;
  for (std::size_t p = 0; p < s.pointCount(); ++p)
    for (const SweepRow& r : runSweepPoint(s, p)) sequential.push_back(r.dump());
  for (int round = 0; round < 2; ++round) {
    ParallelMapOptions options;
    options.threads = 4;
    const auto rows = parallelMap<std::vector<SweepRow>>(
        s.pointCount(), [&](std::size_t p) { return runSweepPoint(s, p); }, options);
    std::vector<std::string> parallel;
    for (const auto& point : rows)
      for (const SweepRow& r : *point) parallel.push_back(r.dump());
    EXPECT_EQ(parallel, sequential);
  }
  for (const std::string& r : sequential) {
    EXPECT_NE(r.find("\"status\":\"ok\""), std::string::npos) << r;
    EXPECT_NE(r.find("\"verification\":\"passed\""), std::string::npos) << r;
  }
}

}  // namespace
}  // namespace moe
