// `moe-sim run` without --trace keeps no activity, ring-pointer or workspace log (only the
// trace reads them): the run, its report and its digest must be the same as with them.

#include <gtest/gtest.h>

#include <sstream>
#include <utility>

#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"
#include "small_streaming_scenario.h"

namespace moe {
namespace {

TEST(ObservationLogs, LeavingThemOutChangesNeitherTheReportNorTheDigest) {
  Scenario sc = test::smallStreamingScenario(2, 4);
  sc.dispatchImpl = DesignSelection::both();
  const ResolvedScenario rs = ResolvedScenario::resolve(sc);
  const RunReport kept = runScenario(rs, true, Fault::None, {}, nullptr, 1, false, true);
  const RunReport dropped = runScenario(rs, true, Fault::None, {}, nullptr, 1, false, false);
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(kept.digest, dropped.digest);
  std::ostringstream keptCsv, droppedCsv;
  writeStagesCsv(keptCsv, kept.results);
  writeStagesCsv(droppedCsv, dropped.results);
  EXPECT_EQ(keptCsv.str(), droppedCsv.str());
  // Kept: every run logs its cores' activities, and the streaming run its rings' pointers
  // (the phased design has no rings). Left out: nothing is logged.
  auto logged = [](const RunReport& r) {
    std::size_t activities = 0, ringSamples = 0;
    for (const auto& run : r.runs) {
      const Observer& obs = run->emulation().observer();
      EXPECT_EQ(obs.activities().items().empty(), !obs.keepsLogs());
      activities += obs.activities().items().size();
      ringSamples += obs.ringSamples().items().size();
    }
    return std::pair(activities, ringSamples);
  };
  const auto [keptActivities, keptRingSamples] = logged(kept);
  EXPECT_GT(keptActivities, 0u);
  EXPECT_GT(keptRingSamples, 0u);
  EXPECT_EQ(logged(dropped), std::pair(std::size_t{0}, std::size_t{0}));
}

}  // namespace
}  // namespace moe
