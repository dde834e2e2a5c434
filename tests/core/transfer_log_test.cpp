// The transfer log behind `moe-sim run --export-transfers`: every transfer the flow network
// carried is recorded once, with its bytes and path, and the CSV lists them all.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"
#include "tests/core/small_streaming_scenario.h"

namespace moe {
namespace {

TEST(TransferLog, RecordsEveryByteEachResourceCarried) {
  Scenario sc = test::smallStreamingScenario(2, 2);
  sc.dispatchImpl = DesignSelection::both();
  std::vector<TransferLog> logs;
  const RunReport r = runScenario(ResolvedScenario::resolve(sc), false, Fault::None, {}, &logs);
  ASSERT_EQ(logs.size(), r.runs.size());
  for (std::size_t i = 0; i < logs.size(); ++i) {
    EXPECT_EQ(logs[i].design, r.runs[i]->design());
    ASSERT_FALSE(logs[i].transfers.empty());
    const Machine& m = r.runs[i]->emulation().machine();
    // The network counts the bytes that crossed each resource; the log's transfers over
    // that resource must add up to the same (so none is missing or counted twice).
    std::vector<double> carried(static_cast<std::size_t>(m.net().resourceCount()), 0);
    Time previous = 0;
    for (const TransferRecord& t : logs[i].transfers) {
      EXPECT_GE(t.start, previous);  // in the order the machine started them
      previous = t.start;
      EXPECT_GT(t.bytes, 0);
      for (int res : t.path) carried[static_cast<std::size_t>(res)] += static_cast<double>(t.bytes);
    }
    for (int res = 0; res < m.net().resourceCount(); ++res)
      EXPECT_NEAR(carried[static_cast<std::size_t>(res)], m.net().resource(res).bytesCarried,
                  1e-6 * (1 + carried[static_cast<std::size_t>(res)]))
          << m.net().resource(res).name;
  }
}

TEST(TransferLog, CsvHasOneRowPerTransferAndDescribesEveryResource) {
  Scenario sc = test::smallStreamingScenario(2, 2);
  std::vector<TransferLog> logs;
  const RunReport r = runScenario(ResolvedScenario::resolve(sc), false, Fault::None, {}, &logs);
  const Machine& m = r.runs.front()->emulation().machine();
  std::ostringstream out;
  writeTransferCsv(out, m, logs);
  std::istringstream in(out.str());
  std::string line;
  int resources = 0, rows = 0;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.rfind("# resource,id,", 0) == 0) {
      continue;  // the column names of the resource lines
    } else if (line.rfind("# resource,", 0) == 0) {
      ++resources;
      EXPECT_EQ(line.find("?"), std::string::npos) << "a resource of unknown kind: " << line;
    } else if (line == "design,start_ps,bytes,latency_ps,path") {
      header = true;
    } else if (header) {
      ++rows;
      EXPECT_EQ(std::count(line.begin(), line.end(), ','), 4) << line;
    }
  }
  EXPECT_TRUE(header);
  EXPECT_EQ(resources, m.net().resourceCount());
  EXPECT_EQ(rows, static_cast<int>(logs.front().transfers.size()));
}

}  // namespace
}  // namespace moe
