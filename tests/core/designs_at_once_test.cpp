// `moe-sim run --impl both|all` emulates each design on its own thread. Each design's
// emulation is independent, so the report must be the same bytes as one run after the
// other: digests, stage tables, the Chrome trace and the transfer log.

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"
#include "small_streaming_scenario.h"

namespace moe {
namespace {

struct Outputs {
  std::uint64_t digest;
  std::string stagesCsv;
  std::string trace;
  std::string transfers;
  bool ok;
  unsigned threads;
};

Outputs runWith(const Scenario& sc, unsigned threads) {
  std::vector<TransferLog> logs;
  const RunReport r =
      runScenario(ResolvedScenario::resolve(sc), true, Fault::None, {}, &logs, threads);
  std::ostringstream csv, trace, transfers;
  writeStagesCsv(csv, r.results);
  writeReportTrace(trace, r);
  writeTransferCsv(transfers, r.runs.front()->emulation().machine(), logs);
  return {r.digest, csv.str(), trace.str(), transfers.str(), r.ok(), r.designThreads};
}

TEST(DesignsAtOnce, BothAndAllGiveTheSameBytesAsOneDesignAfterTheOther) {
  for (DesignSelection impl : {DesignSelection::both(), DesignSelection::all()}) {
    Scenario sc = test::smallStreamingScenario(2, 4);
    sc.dispatchImpl = impl;
    const Outputs seq = runWith(sc, 1);
    const Outputs par = runWith(sc, 3);
    ASSERT_EQ(seq.threads, 1u);
    ASSERT_GT(par.threads, 1u) << "the designs did not run at once";
    EXPECT_TRUE(seq.ok);
    EXPECT_TRUE(par.ok);
    EXPECT_EQ(seq.digest, par.digest);
    EXPECT_EQ(seq.stagesCsv, par.stagesCsv);
    EXPECT_EQ(seq.trace, par.trace);
    EXPECT_EQ(seq.transfers, par.transfers);
    EXPECT_NE(seq.transfers.find("phased"), std::string::npos);
  }
}

TEST(DesignsAtOnce, ProgressReportsComeOneAtATimeFromEveryDesign) {
  Scenario sc = test::smallStreamingScenario(2, 4);
  sc.dispatchImpl = DesignSelection::both();
  sc.model.tokensPerRank = 256;  // enough events for a report every 2^16 of them
  int inside = 0, overlaps = 0;
  std::set<std::string> designs;
  const RunProgress progress = [&](const std::string& design, const std::string&, Time,
                                   std::uint64_t) {
    if (++inside > 1) ++overlaps;
    designs.insert(design);
    --inside;
  };
  const RunReport r =
      runScenario(ResolvedScenario::resolve(sc), false, Fault::None, progress, nullptr, 2);
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(designs.size(), 2u);
  EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace moe
