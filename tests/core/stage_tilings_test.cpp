// The streaming dispatch and the streaming combine each have their own ring tiling
// (rings.dispatch, rings.combine). Old files, whose flat `rings` fields set both, load
// unchanged; a stage's tiling changes only that stage; errors name the stage's path; the
// sweep and the tuner tile one stage on its own.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/run/layer_run.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/streaming_tuner.h"
#include "core/studies/sweep_point.h"
#include "core/studies/sweep_spec.h"
#include "core/util/error.h"
#include "tests/core/small_streaming_scenario.h"

using namespace moe;
using nlohmann::json;

namespace {

Scenario tiny() {
  return test::smallStreamingScenario(2, 2, "stage-tilings");
}

std::unique_ptr<LayerRun> runStreaming(const Scenario& s) {
  auto run = std::make_unique<LayerRun>(ResolvedScenario::resolve(s), Design::Streaming);
  run->runToEnd();
  return run;
}

const StageReport& stage(const LayerRun& run, StageId id) {
  for (const StageReport& st : run.stages())
    if (st.id == id) return st;
  throw std::logic_error("no such stage");
}

std::string errorPath(const json& j) {
  try {
    checkScenario(scenarioFromJson(j));
  } catch (const InputError& e) {
    return e.path();
  }
  return "";
}

}  // namespace

TEST(StageTilings, FlatRingFieldsSetBothStagesAndAreWrittenFlatAgain) {
  json j = scenarioToJson(tiny());
  ASSERT_TRUE(j["rings"].contains("chunk_bytes")) << "one tiling for both is written flat";
  j["rings"]["queue_chunks"] = 6;
  const Scenario s = scenarioFromJson(j);
  EXPECT_EQ(s.rings.dispatch.queueChunks, 6);
  EXPECT_EQ(s.rings.combine.queueChunks, 6);
  EXPECT_EQ(scenarioToJson(s), j) << "an old file round-trips to the same JSON";
}

TEST(StageTilings, AStagesObjectOverridesTheFlatFieldsForThatStageOnly) {
  json j = scenarioToJson(tiny());
  j["rings"]["combine"] = {{"queue_chunks", 3}, {"forwarder_cores", 2}};
  const Scenario s = scenarioFromJson(j);
  EXPECT_EQ(s.rings.dispatch, tiny().rings.dispatch);
  EXPECT_EQ(s.rings.combine.queueChunks, 3);
  EXPECT_EQ(s.rings.combine.forwarderCores, 2);
  EXPECT_EQ(s.rings.combine.chunkBytes, tiny().rings.combine.chunkBytes) << "flat field kept";
  // Written per stage, and read back to the same scenario.
  const json out = scenarioToJson(s);
  EXPECT_FALSE(out["rings"].contains("chunk_bytes"));
  EXPECT_EQ(scenarioFromJson(out), s);
}

TEST(StageTilings, ErrorsNameTheStagesPath) {
  json j = scenarioToJson(tiny());
  j["rings"]["combine"] = {{"queue_chunks", 1}};
  EXPECT_EQ(errorPath(j), "rings.combine.queue_chunks");
  j["rings"]["combine"] = {{"chunk_bytes", 100}};  // not a multiple of 32
  EXPECT_EQ(errorPath(j), "rings.combine.chunk_bytes");
  j["rings"]["combine"] = {{"queue_chunk", 4}};  // a typo is an unknown key, not ignored
  EXPECT_EQ(errorPath(j), "rings.combine.queue_chunk");
  j["rings"].erase("combine");
  j["rings"]["dispatch"] = {{"sender_cores", 0}};
  EXPECT_EQ(errorPath(j), "rings.dispatch.sender_cores");
  j["rings"]["dispatch"] = "big";
  EXPECT_EQ(errorPath(j), "rings.dispatch");
  // The flat form, as before the split, still names the flat path.
  j["rings"].erase("dispatch");
  j["rings"]["queue_chunks"] = 1;
  EXPECT_EQ(errorPath(j), "rings.queue_chunks");
}

TEST(StageTilings, TheCombinesTilingLeavesTheDispatchStageUnchanged) {
  const Scenario base = tiny();
  Scenario other = base;
  other.rings.combine.queueChunks = 2;
  other.rings.combine.forwarderCores = 1;
  const auto a = runStreaming(base), b = runStreaming(other);
  ASSERT_TRUE(a->finished() && b->finished());
  for (const auto* run : {a.get(), b.get()})
    for (const VerificationCheck& c : run->verifyAgainstReference()) EXPECT_TRUE(c.ok) << c.name;
  const StageReport &da = stage(*a, StageId::Dispatch), &db = stage(*b, StageId::Dispatch);
  EXPECT_EQ(da.start, db.start);
  EXPECT_EQ(da.end, db.end);
  EXPECT_EQ(da.linkBytes, db.linkBytes);
  EXPECT_NE(stage(*a, StageId::Combine).duration(), stage(*b, StageId::Combine).duration());
}

TEST(StageTilings, TheDispatchsTilingLeavesTheCombineWorkUnchanged) {
  const Scenario base = tiny();
  Scenario other = base;
  other.rings.dispatch.senderCores = 1;
  other.rings.dispatch.chunkBytes = 4096;
  const auto a = runStreaming(base), b = runStreaming(other);
  ASSERT_TRUE(a->finished() && b->finished());
  EXPECT_NE(stage(*a, StageId::Dispatch).duration(), stage(*b, StageId::Dispatch).duration());
  // The combine starts later or earlier, but moves the same bytes on the same rings.
  EXPECT_EQ(stage(*a, StageId::Combine).linkBytes, stage(*b, StageId::Combine).linkBytes);
  EXPECT_EQ(stage(*a, StageId::Combine).rdmaPosts, stage(*b, StageId::Combine).rdmaPosts);
}

TEST(StageTilings, ASweepVariesOneStagesTilingOverAFlatBase) {
  const json sweep = {{"base", scenarioToJson(tiny())},
                      {"axes", {{{"field", "rings.combine.queue_chunks"}, {"values", {2, 8}}}}}};
  const SweepSpec spec = sweepFromJson(sweep, ".");
  const Scenario p = sweepPointScenario(spec, sweepPointValues(spec, 0));
  EXPECT_EQ(p.rings.combine.queueChunks, 2);
  EXPECT_EQ(p.rings.dispatch, tiny().rings.dispatch);
  const std::vector<std::string> fields = sweepableFields(tiny());
  for (const char* f :
       {"rings.chunk_bytes", "rings.dispatch.chunk_bytes", "rings.combine.chunk_bytes"})
    EXPECT_NE(std::find(fields.begin(), fields.end(), f), fields.end()) << f;
}

TEST(StageTilings, AFlatSweepFieldSetsBothStagesOfABaseWrittenPerStage) {
  Scenario base = tiny();
  base.rings.combine.queueChunks = 3;  // written per stage
  const json sweep = {{"base", scenarioToJson(base)},
                      {"axes", {{{"field", "rings.sender_cores"}, {"values", {1, 2}}}}}};
  const SweepSpec spec = sweepFromJson(sweep, ".");
  const Scenario p = sweepPointScenario(spec, sweepPointValues(spec, 0));
  EXPECT_EQ(p.rings.dispatch.senderCores, 1);
  EXPECT_EQ(p.rings.combine.senderCores, 1);
  EXPECT_EQ(p.rings.combine.queueChunks, 3) << "the stage's own fields stay";
}

TEST(StageTilings, TuningTheCombineLeavesTheDispatchsTilingAsGiven) {
  TuneOptions o;
  o.budget = 8;
  o.threads = 1;
  o.objective = TuneObjective::Combine;
  const Scenario given = tiny();
  const TuneResult r = tuneStreaming(given, o);
  EXPECT_EQ(r.tuned.rings.dispatch, given.rings.dispatch);
  EXPECT_EQ(knobsOf(r.tuned, TuneObjective::Combine), r.best.knobs);
  bool namesCombineRings = false;
  for (const TuneBinding& b : r.bindings)
    if (b.knob.rfind("rings.", 0) == 0) {
      EXPECT_EQ(b.knob.rfind("rings.combine.", 0), 0u) << b.knob;
      namesCombineRings = true;
    }
  EXPECT_TRUE(namesCombineRings);
}
