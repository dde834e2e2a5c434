// Stepping a run event by event (the workbench's playback) ends at the same emulated time as
// running it to the end (the CLI): a run is finished only when the last operation in flight
// has landed, not when its last core finished.

#include <gtest/gtest.h>

#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"

namespace moe {
namespace {

TEST(SteppingMatchesRunToEnd, EveryDesignEndsAtTheSameTime) {
  Scenario sc;
  sc.cluster.servers = 2;
  sc.model.tokensPerRank = 64;
  sc.model.hidden = 512;
  sc.payload = PayloadMode::None;
  const ResolvedScenario rs = ResolvedScenario::resolve(sc);
  for (Design d : {Design::Phased, Design::Streaming}) {
    auto whole = makeRun(rs, d);
    whole->runToEnd();
    ASSERT_TRUE(whole->finished()) << designName(d);
    auto stepped = makeRun(rs, d);
    while (stepped->step()) {
    }
    ASSERT_TRUE(stepped->finished()) << designName(d);
    EXPECT_EQ(stepped->emulation().sim().now(), whole->emulation().sim().now()) << designName(d);
    EXPECT_EQ(stepped->digest(), whole->digest()) << designName(d);
  }
}

}  // namespace
}  // namespace moe
