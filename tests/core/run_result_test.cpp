// A run's figures as one value: every design, through the SteppableRun interface alone,
// gives its stages by typed id in run order, an end no earlier than its last stage, the
// engine's counters, its buffers, and the digest of the run itself.

#include <gtest/gtest.h>

#include <vector>

#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/runtime/run_result.h"
#include "small_streaming_scenario.h"

namespace {

using moe::Design;
using moe::RunResult;
using moe::StageId;

std::vector<StageId> ids(const RunResult& r) {
  std::vector<StageId> out;
  for (const moe::StageReport& st : r.stages) out.push_back(st.id);
  return out;
}

TEST(RunResult, EveryLayerDesignReportsTheSameStagesByIdWithItsOwnNames) {
  moe::Scenario sc = moe::test::smallStreamingScenario(2, 4);
  sc.payload = moe::PayloadMode::None;
  const moe::ResolvedScenario rs = moe::ResolvedScenario::resolve(sc);
  const std::vector<StageId> layer = {StageId::UpdateExpert,   StageId::Layout,
                                      StageId::DispatchNotify, StageId::Dispatch,
                                      StageId::Experts,        StageId::Combine};
  for (Design d : {Design::Phased, Design::Streaming, Design::Flat}) {
    auto run = moe::makeRun(rs, d);
    run->runToEnd();
    const RunResult r = run->result();
    EXPECT_EQ(r.design, run->design());
    EXPECT_TRUE(r.finished);
    EXPECT_FALSE(r.deadlocked);
    EXPECT_EQ(r.deadlockText(), "");
    EXPECT_EQ(ids(r), layer) << r.design;
    // Display names carry the design where it differs; labels line the designs up.
    EXPECT_EQ(r.stage(StageId::Dispatch)->name, "dispatch-" + r.design);
    EXPECT_EQ(r.stage(StageId::Dispatch)->label(), "dispatch");
    EXPECT_EQ(r.stageTime(StageId::Matmul), 0) << "the layer has no matmul stage";
    EXPECT_EQ(r.stage(StageId::Matmul), nullptr);
    EXPECT_GE(r.end, r.stages.back().end);
    EXPECT_EQ(r.end, run->emulation().sim().now());
    EXPECT_EQ(r.counters.events, run->emulation().sim().eventsRun());
    EXPECT_EQ(r.counters.rdmaPosts, run->emulation().machine().rdmaPosts);
    EXPECT_GT(r.counters.rdmaPosts, 0) << "two servers: dispatch and combine cross RDMA";
    EXPECT_GT(r.buffers.dispatchBytes, 0);
    EXPECT_GT(r.buffers.combineBytes, 0);
    EXPECT_EQ(r.buffers.workspaceBytes, 0);
    EXPECT_EQ(r.digest, run->digest());
    EXPECT_FALSE(r.verified);
    const RunResult v = run->result(run->verifyAgainstReference());
    EXPECT_TRUE(v.verified);
    EXPECT_FALSE(v.verification.empty());
    EXPECT_TRUE(v.verificationPassed()) << r.design;
  }
}

TEST(RunResult, TheFusedOperatorsStagesAndWorkspaceComeFromTheSameInterface) {
  moe::Scenario sc;
  sc.workload.kind = moe::WorkloadKind::AlltoallMatmulRs;
  sc.workload.ranks = 4, sc.workload.m = 128, sc.workload.n = 96, sc.workload.k = 512;
  sc.workload.tileM = 16, sc.workload.tileN = 32, sc.workload.tileK = 32;
  sc.workload.stages = 2;
  const moe::ResolvedScenario rs = moe::ResolvedScenario::resolve(sc);
  auto seq = moe::makeRun(rs, Design::Sequential);
  seq->runToEnd();
  const RunResult s = seq->result();
  EXPECT_EQ(ids(s),
            (std::vector<StageId>{StageId::AllToAll, StageId::Matmul, StageId::ReduceScatter}));
  EXPECT_GT(s.buffers.workspaceBytes, 0);
  EXPECT_EQ(s.buffers.dispatchBytes, 0);
  auto pipe = moe::makeRun(rs, Design::Pipelined);
  pipe->runToEnd();
  const RunResult p = pipe->result();
  EXPECT_EQ(ids(p), std::vector<StageId>{StageId::A2aMatmulRs});
  EXPECT_EQ(p.buffers.dispatchBytes, 0);
  EXPECT_GT(p.end, 0);
  EXPECT_EQ(p.end, pipe->emulation().sim().now());
}

TEST(RunResult, AStalledCoreIsReportedAsADeadlockWithItsStageAndDiagnosis) {
  moe::Scenario sc = moe::test::smallStreamingScenario(2, 4);
  sc.payload = moe::PayloadMode::None;
  const moe::ResolvedScenario rs = moe::ResolvedScenario::resolve(sc);
  auto run = moe::makeRun(rs, Design::Streaming, moe::Fault::StallCore);
  run->runToEnd();
  const RunResult r = run->result();
  ASSERT_TRUE(r.deadlocked);
  EXPECT_FALSE(r.finished);
  EXPECT_EQ(r.deadlockStage, run->currentStage());
  EXPECT_FALSE(r.deadlockDiagnosis.empty());
  const std::string text = r.deadlockText();
  EXPECT_EQ(text.rfind("deadlock in streaming run during stage '" + r.deadlockStage + "' at ", 0),
            0u)
      << text;
  EXPECT_NE(text.find(r.deadlockDiagnosis), std::string::npos);
}

}  // namespace
