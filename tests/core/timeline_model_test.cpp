// The timeline's model without Qt: bars per core, role lanes that count every core that ran
// a program in the role (as the card view does), summary lanes only with communication,
// and the hidden-communication figure from closed and open activity.

#include <gtest/gtest.h>

#include "core/observe/timeline_model.h"

using namespace moe;

namespace {

// Two cards of two cores each: cores 0, 1 on card 0; cores 2, 3 on card 1.
Snapshot fourCores(Time now) {
  Snapshot s;
  s.now = now;
  for (int i = 0; i < 4; ++i) {
    CoreSnap c;
    c.id = i;
    c.card = i / 2;
    s.cores.push_back(c);
  }
  return s;
}

ActivityInterval iv(int core, Role r, Activity a, Time start, Time end) {
  return ActivityInterval{core, r, a, start, end};
}

}  // namespace

TEST(TimelineModel, PerCoreLanesFollowCardsAndSkipIdleSpans) {
  TimelineModel m;
  m.append({iv(2, Role::Sender, Activity::Copy, 0, 10), iv(0, Role::Sender, Activity::Idle, 0, 5),
            iv(0, Role::Sender, Activity::WaitSpace, 5, 9),
            iv(3, Role::Receiver, Activity::Done, 9, 12)});
  EXPECT_EQ(m.intervalCount(), 2u);  // the idle and done spans are not bars
  ASSERT_EQ(m.bars(0).size(), 1u);
  EXPECT_EQ(m.bars(0)[0].activity, Activity::WaitSpace);
  EXPECT_TRUE(m.bars(1).empty());
  EXPECT_TRUE(m.bars(99).empty());
  EXPECT_FALSE(m.hasCommunication());
  const auto lanes = m.lanes(TimelineGrouping::PerCore, fourCores(12));
  ASSERT_EQ(lanes.size(), 2u);  // cores with bars only, card-major
  EXPECT_EQ(lanes[0].core, 0);
  EXPECT_EQ(lanes[0].card, 0);
  EXPECT_EQ(lanes[1].core, 2);
  EXPECT_EQ(lanes[1].card, 1);
  EXPECT_FALSE(m.lanesChanged());
}

TEST(TimelineModel, RoleLanesCountCoresThatNeverWorked) {
  TimelineModel m;
  // Card 0: core 0 works as reduce-scatter; core 1 ran a reduce-scatter program with no
  // work (only a done span). Both are reduce-scatter cores.
  m.append({iv(0, Role::ReduceScatter, Activity::Vector, 0, 10),
            iv(1, Role::ReduceScatter, Activity::Done, 0, 0),
            iv(2, Role::Gemm, Activity::Cube, 0, 4)});
  // Core 3's gemm program is still in its first activity: only the snapshot knows.
  Snapshot s = fourCores(6);
  s.cores[3].role = Role::Gemm;
  s.cores[3].activity = Activity::Cube;
  s.cores[3].since = 2;
  m.noteRoles(s);
  const auto lanes = m.lanes(TimelineGrouping::ByRole, s);
  int rsCores = -1, gemmCores = -1, summaries = 0;
  for (const TimelineLane& l : lanes) {
    if (l.kind == TimelineLane::Kind::Summary) ++summaries;
    if (l.kind == TimelineLane::Kind::Role && l.role == Role::ReduceScatter && l.card == 0)
      rsCores = static_cast<int>(l.cores.size());
    if (l.kind == TimelineLane::Kind::Role && l.role == Role::Gemm && l.card == 1)
      gemmCores = static_cast<int>(l.cores.size());
  }
  EXPECT_EQ(rsCores, 2);
  EXPECT_EQ(gemmCores, 2);
  EXPECT_EQ(summaries, 3);  // compute, communication, overlap
  EXPECT_EQ(lanes.front().kind, TimelineLane::Kind::Summary);
}

TEST(TimelineModel, HiddenCommunicationFromClosedAndOpenActivity) {
  TimelineModel m;
  m.append({iv(0, Role::A2A, Activity::Copy, 0, 10),
            iv(1, Role::ReduceScatter, Activity::Vector, 20, 30),
            iv(2, Role::Gemm, Activity::Cube, 5, 25),
            // Waiting is not working: it neither hides nor needs hiding.
            iv(3, Role::A2A, Activity::WaitData, 40, 50)});
  EXPECT_TRUE(m.hasOverlapSummary());
  EXPECT_EQ(m.communicationTime(), 20);        // [0,10) and [20,30)
  EXPECT_EQ(m.hiddenCommunicationTime(), 10);  // [5,10) and [20,25)
  // A gemm core still computing since 25 at time 35 hides [25,30) too.
  Snapshot s = fourCores(35);
  s.cores[2].role = Role::Gemm;
  s.cores[2].activity = Activity::Cube;
  s.cores[2].since = 25;
  EXPECT_EQ(m.communicationAt(s).overlap(m.computeAt(s)), 15);
  EXPECT_EQ(m.communicationAt(s).measure(), 20);
  m.clear();
  EXPECT_EQ(m.intervalCount(), 0u);
  EXPECT_FALSE(m.hasCommunication());
  EXPECT_EQ(m.communicationTime(), 0);
}
