// The observation model without Qt: takeSnapshot copies a run's cores, rings, workspace
// strips, links and stage marks into plain values that agree with the live run, at the
// start, mid-run and at the end.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/observe/snapshot.h"
#include "core/run/run_factory.h"
#include "core/util/error.h"

namespace moe {
namespace {

Scenario smallLayer() {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 2;
  s.hardware.cardsPerServer = 2;
  s.model.tokensPerRank = 16;
  s.model.hidden = 256;
  s.model.topk = 2;
  s.model.experts = 8;
  s.model.intermediate = 64;
  s.rings.setBoth(&RingTiling::chunkBytes, 4096);
  s.rings.setBoth(&RingTiling::queueChunks, 2);  // tiny rings: they fill and wrap while we look
  s.rings.setBoth(&RingTiling::senderCores, 2);
  s.rings.setBoth(&RingTiling::forwarderCores, 2);
  s.rings.setBoth(&RingTiling::receiverCores, 2);
  return s;
}

TEST(Snapshot, BeforeTheFirstEventEveryCoreIsIdleAndTimeIsZero) {
  const auto run = makeRun(ResolvedScenario::resolve(smallLayer()), Design::Streaming);
  const Snapshot s = takeSnapshot(*run, 7);
  EXPECT_EQ(s.runId, 7u);
  EXPECT_EQ(s.design, "streaming");
  EXPECT_EQ(s.now, 0);
  EXPECT_EQ(s.stage, "not started");
  EXPECT_EQ(s.servers, 2);
  EXPECT_EQ(s.cardsPerServer, 2);
  ASSERT_EQ(s.cards.size(), 4u);
  EXPECT_EQ(static_cast<int>(s.cores.size()), run->emulation().machine().coreCount());
  EXPECT_EQ(s.busyCores(), 0);
  EXPECT_EQ(s.waitingCores(), 0);
  EXPECT_FALSE(s.finished);
  EXPECT_FALSE(s.deadlocked);
  // 2 servers x 2 cards: one HCCS pair per server in each direction, and a NIC tx and rx
  // per card.
  const auto count = [&](LinkInfo::Kind k) {
    return std::count_if(s.links.begin(), s.links.end(),
                         [k](const LinkSnap& l) { return l.kind == k; });
  };
  EXPECT_EQ(count(LinkInfo::Kind::NicTx), 4);
  EXPECT_EQ(count(LinkInfo::Kind::NicRx), 4);
  EXPECT_GT(count(LinkInfo::Kind::Hccs), 0);
}

TEST(Snapshot, MidRunRingsAndCoresMatchTheLiveRun) {
  auto run = makeRun(ResolvedScenario::resolve(smallLayer()), Design::Streaming);
  bool sawDataInRing = false, sawWaiting = false;
  while (run->step()) {
    const std::string& stage = run->currentStage();
    if (stage.find("streaming") == std::string::npos) continue;
    const Snapshot s = takeSnapshot(*run, 1);
    EXPECT_EQ(s.now, run->emulation().sim().now());
    EXPECT_EQ(s.events, run->emulation().sim().eventsRun());
    EXPECT_EQ(s.stage, stage);
    ASSERT_EQ(s.rings.size(), run->emulation().rings().size());
    for (std::size_t i = 0; i < s.rings.size(); ++i) {
      const RingSnap& r = s.rings[i];
      const RingBuffer& live = run->emulation().rings()[i];
      EXPECT_EQ(r.head, live.head());
      EXPECT_EQ(r.tail, live.tail());
      // Ring bounds: never more in flight than the ring holds, never a negative fill.
      EXPECT_GE(r.occupied(), 0);
      EXPECT_LE(r.occupied(), r.capacity);
      sawDataInRing = sawDataInRing || r.occupied() > 0;
    }
    EXPECT_LE(s.busyCores() + s.waitingCores(), static_cast<int>(s.cores.size()));
    sawWaiting = sawWaiting || s.waitingCores() > 0;
    for (const CoreSnap& c : s.cores)
      EXPECT_EQ(c.activity, run->emulation().machine().core(c.id).activity());
    if (sawDataInRing && sawWaiting) break;
  }
  EXPECT_TRUE(sawDataInRing);
  EXPECT_TRUE(sawWaiting);
}

TEST(Snapshot, AtTheEndEveryStageIsClosedAndEveryRingDrained) {
  auto run = makeRun(ResolvedScenario::resolve(smallLayer()), Design::Streaming);
  run->runToEnd();
  const Snapshot s = takeSnapshot(*run, 2);
  EXPECT_TRUE(s.finished);
  EXPECT_FALSE(s.deadlocked);
  EXPECT_EQ(s.stage, "done");
  ASSERT_FALSE(s.stageMarks.empty());
  for (const StageMark& m : s.stageMarks) EXPECT_GE(m.end, m.start) << m.name;
  EXPECT_EQ(s.stageMarks.back().end, s.now);
  for (const RingSnap& r : s.rings) {
    EXPECT_EQ(r.head, r.tail) << r.name;
    EXPECT_EQ(r.stats.recordsRead, r.stats.recordsWritten) << r.name;
  }
}

TEST(Snapshot, FusedWorkloadShowsItsWorkspaceStrips) {
  Scenario sc;
  sc.workload.kind = WorkloadKind::AlltoallMatmulRs;
  sc.workload.m = 256;  // M/r = 32 rows: one tile_m per rank
  sc.workload.n = 128;
  sc.workload.k = 1024;
  sc.workload.stages = 2;
  auto run = makeRun(ResolvedScenario::resolve(sc), Design::Pipelined);
  run->runToEnd();
  const Snapshot s = takeSnapshot(*run, 3);
  EXPECT_EQ(s.design, "pipelined");
  ASSERT_EQ(s.workspace.size(), run->emulation().workspaceStages().size());
  ASSERT_FALSE(s.workspace.empty());
  for (const StagesSnap& w : s.workspace) {
    EXPECT_EQ(static_cast<int>(w.states.size()), w.slotCount());
    EXPECT_EQ(w.occupied, 0) << w.name;  // everything released at the end
  }
  EXPECT_TRUE(s.rings.empty());
}

TEST(RunFactory, RefusesADesignOfAnotherWorkloadNamingTheField) {
  const ResolvedScenario layer = ResolvedScenario::resolve(smallLayer());
  try {
    makeRun(layer, Design::Pipelined);
    FAIL() << "a fused design was accepted for the MoE layer";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "design");
  }
  try {
    makeRun(layer, Design::Phased, Fault::DropTail);
    FAIL() << "a fault was accepted for the phased design";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "fault");
  }
}

}  // namespace
}  // namespace moe
