// Each stage's report carries the cores' time per (role, activity) during that stage
// (moe-sim run prints it as "time per stage, role and activity"): the stages' shares add up
// to the whole run's, and each role's time falls in the stages that use it.

#include <gtest/gtest.h>

#include "core/run/layer_run.h"
#include "tests/core/small_streaming_scenario.h"

using namespace moe;

namespace {

Scenario twoServers() {
  Scenario s = test::smallStreamingScenario(2, 2, "stage-roles");
  s.model.hidden = 64;
  s.rings.setBoth(&RingTiling::forwarderCores, 2);
  return s;
}

Time of(const StageReport& st, Role r, Activity a) {
  return st.roleActivity[static_cast<std::size_t>(r)][static_cast<std::size_t>(a)];
}

}  // namespace

TEST(StageRoleActivity, StagesAddUpToTheWholeRunAndRolesStayInTheirStages) {
  LayerRun run(ResolvedScenario::resolve(twoServers()), Design::Streaming);
  run.runToEnd();
  ASSERT_TRUE(run.finished());
  const Machine& m = run.emulation().machine();
  for (Role r : {Role::Sender, Role::Forwarder, Role::Receiver, Role::Gemm})
    for (Activity a : {Activity::Copy, Activity::Vector, Activity::Cube, Activity::WaitSpace,
                       Activity::WaitData, Activity::WaitSync}) {
      Time whole = 0, stages = 0;
      for (int c = 0; c < m.coreCount(); ++c)
        whole += m.core(c).roleActivityTime(r)[static_cast<std::size_t>(a)];
      for (const StageReport& st : run.stages()) stages += of(st, r, a);
      EXPECT_EQ(stages, whole) << roleName(r) << " " << activityName(a);
    }
  for (const StageReport& st : run.stages()) {
    const bool streams = st.name == "dispatch-streaming" || st.name == "combine-streaming";
    EXPECT_EQ(of(st, Role::Forwarder, Activity::Copy) > 0, streams) << st.name;
    EXPECT_EQ(of(st, Role::Gemm, Activity::Cube) > 0, st.name == "experts") << st.name;
  }
}
