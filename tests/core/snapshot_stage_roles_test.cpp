// The observation model without Qt: takeSnapshot over a whole MoE layer run. It reports
// the emulation's own time and counts, rings within their bounds, links in both directions,
// and each core in the role of the current stage only (a core whose program belongs to an
// earlier stage reads idle).

#include <gtest/gtest.h>

#include <set>

#include "core/observe/snapshot.h"
#include "core/run/layer_run.h"

using namespace moe;

namespace {

Scenario twoServers() {
  Scenario s;
  s.name = "snapshot-test";
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 2;
  s.hardware.cardsPerServer = 2;
  s.model.tokensPerRank = 16;
  s.model.hidden = 128;
  s.model.topk = 2;
  s.model.experts = 8;
  s.model.intermediate = 32;
  s.rings.setBoth(RingTiling{2048, 4, 2, 2, 2});
  return s;
}

std::unique_ptr<LayerRun> newRun(const Scenario& s) {
  return std::make_unique<LayerRun>(ResolvedScenario::resolve(s), Design::Streaming);
}

// The roles each stage's kernels give their cores.
std::set<Role> rolesOf(const std::string& stage) {
  if (stage == "dispatch-streaming" || stage == "combine-streaming")
    return {Role::Sender, Role::Forwarder, Role::Receiver};
  return {};
}

}  // namespace

TEST(SnapshotStages, BeforeTheFirstEventNothingRuns) {
  auto run = newRun(twoServers());
  const Snapshot s = takeSnapshot(*run, 7);
  EXPECT_EQ(s.runId, 7u);
  EXPECT_EQ(s.now, 0);
  EXPECT_EQ(s.events, 0u);
  EXPECT_EQ(s.stage, "not started");
  EXPECT_FALSE(s.finished);
  EXPECT_EQ(s.servers, 2);
  EXPECT_EQ(s.cardsPerServer, 2);
  ASSERT_EQ(s.cards.size(), 4u);
  EXPECT_EQ(static_cast<int>(s.cores.size()), run->emulation().machine().coreCount());
  for (const CoreSnap& c : s.cores) EXPECT_EQ(c.role, Role::Idle) << c.name;
  EXPECT_EQ(s.busyCores(), 0);
  EXPECT_EQ(s.waitingCores(), 0);
}

TEST(SnapshotStages, FollowsTheRunAndShowsOnlyTheCurrentStagesRoles) {
  auto run = newRun(twoServers());
  const Simulator& sim = run->emulation().sim();
  std::set<std::string> checkedStages;
  int snapshots = 0;
  for (std::uint64_t i = 0; run->step(); ++i) {
    if (i % 37 != 0) continue;
    const Snapshot s = takeSnapshot(*run, 1);
    ++snapshots;
    EXPECT_EQ(s.now, sim.now());
    EXPECT_EQ(s.events, sim.eventsRun());
    EXPECT_EQ(s.stage, run->currentStage());
    int working = 0, waiting = 0;
    for (const CoreSnap& c : s.cores) {
      working += isWorking(c.activity);
      waiting += isWaiting(c.activity);
      // A core at work or blocked runs a program of this stage, so it has a role.
      if (isWorking(c.activity) || isWaiting(c.activity)) {
        EXPECT_NE(c.role, Role::Idle) << c.name << " at " << s.now;
      }
      const std::set<Role> allowed = rolesOf(s.stage);
      if (!allowed.empty() && c.role != Role::Idle) {
        EXPECT_TRUE(allowed.count(c.role))
            << c.name << " shows role " << roleName(c.role) << " in stage " << s.stage;
        checkedStages.insert(s.stage);
      }
    }
    EXPECT_EQ(s.busyCores(), working);
    EXPECT_EQ(s.waitingCores(), waiting);
    for (const RingSnap& r : s.rings) {
      EXPECT_GE(r.occupied(), 0) << r.name;
      EXPECT_LE(r.occupied(), r.capacity) << r.name;
      EXPECT_LE(r.head, r.tail) << r.name;
    }
  }
  EXPECT_GT(snapshots, 10);
  EXPECT_TRUE(checkedStages.count("dispatch-streaming"));
  EXPECT_TRUE(checkedStages.count("combine-streaming"));

  const Snapshot end = takeSnapshot(*run, 1);
  EXPECT_TRUE(end.finished);
  EXPECT_EQ(end.stage, "done");
  EXPECT_EQ(end.busyCores(), 0);
  EXPECT_EQ(end.waitingCores(), 0);
  // Stage marks: in order, each closed, together covering the run.
  ASSERT_FALSE(end.stageMarks.empty());
  for (std::size_t i = 0; i < end.stageMarks.size(); ++i) {
    EXPECT_GE(end.stageMarks[i].end, end.stageMarks[i].start);
    if (i > 0) {
      EXPECT_EQ(end.stageMarks[i].start, end.stageMarks[i - 1].end);
    }
  }
  EXPECT_EQ(end.stageMarks.back().end, end.now);
}

TEST(SnapshotStages, EveryLinkHasItsOtherDirection) {
  auto run = newRun(twoServers());
  run->runToEnd();
  const Snapshot s = takeSnapshot(*run, 1);
  ASSERT_FALSE(s.links.empty());
  double carried = 0;
  for (const LinkSnap& l : s.links) {
    EXPECT_GT(l.capacityGBps, 0);
    EXPECT_GE(l.bytesCarried, 0);
    carried += l.bytesCarried;
    int opposite = 0;
    for (const LinkSnap& o : s.links) {
      if (l.kind == LinkInfo::Kind::Hccs)
        opposite +=
            o.kind == LinkInfo::Kind::Hccs && o.srcCard == l.dstCard && o.dstCard == l.srcCard;
      else if (l.kind == LinkInfo::Kind::NicTx)
        opposite += o.kind == LinkInfo::Kind::NicRx && o.srcCard == l.srcCard;
      else if (l.kind == LinkInfo::Kind::NicRx)
        opposite += o.kind == LinkInfo::Kind::NicTx && o.srcCard == l.srcCard;
      else if (l.kind == LinkInfo::Kind::SwitchTx)
        opposite += o.kind == LinkInfo::Kind::SwitchRx && o.srcCard == l.srcCard;
      else
        opposite += o.kind == LinkInfo::Kind::SwitchTx && o.srcCard == l.srcCard;
    }
    EXPECT_EQ(opposite, 1) << "link " << l.srcCard << "->" << l.dstCard;
  }
  EXPECT_GT(carried, 0);
}

// On a switch fabric each card's two switch ports are links of the snapshot (the cluster
// view draws them as spokes to the server's switch), with the traffic they carried.
TEST(SnapshotStages, SwitchPortsAreLinksOfEveryCard) {
  Scenario sc = twoServers();
  sc.profileName = "h800-nvswitch";
  sc.hardware = builtinProfile("h800-nvswitch");
  sc.hardware.cardsPerServer = 2;
  auto run = newRun(sc);
  run->runToEnd();
  const Snapshot s = takeSnapshot(*run, 1);
  for (LinkInfo::Kind k : {LinkInfo::Kind::SwitchTx, LinkInfo::Kind::SwitchRx}) {
    double carried = 0;
    int ports = 0;
    for (const LinkSnap& l : s.links)
      if (l.kind == k) {
        ++ports;
        carried += l.bytesCarried;
        EXPECT_EQ(l.srcCard, l.dstCard);
      }
    EXPECT_EQ(ports, static_cast<int>(s.cards.size())) << "one port each way per card";
    EXPECT_GT(carried, 0);
  }
  for (const LinkSnap& l : s.links) EXPECT_NE(l.kind, LinkInfo::Kind::Hccs) << "no pair links";
}

TEST(SnapshotStages, SameScenarioSameSnapshots) {
  auto a = newRun(twoServers());
  auto b = newRun(twoServers());
  for (int i = 0; i < 2000 && a->step() && b->step(); ++i) {
    if (i % 250 != 0) continue;
    const Snapshot sa = takeSnapshot(*a, 1), sb = takeSnapshot(*b, 1);
    ASSERT_EQ(sa.now, sb.now);
    ASSERT_EQ(sa.cores.size(), sb.cores.size());
    for (std::size_t c = 0; c < sa.cores.size(); ++c) {
      EXPECT_EQ(sa.cores[c].activity, sb.cores[c].activity);
      EXPECT_EQ(sa.cores[c].role, sb.cores[c].role);
      EXPECT_EQ(sa.cores[c].since, sb.cores[c].since);
    }
    for (std::size_t r = 0; r < sa.rings.size(); ++r) EXPECT_EQ(sa.rings[r].tail, sb.rings[r].tail);
  }
}
