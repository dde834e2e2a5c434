// `moe-sim run --export-transfers FILE`: the transfer trace bench/simgrid_peer replays.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/cli/sim_process.h"

namespace fs = std::filesystem;

namespace {

const fs::path& testDir() {
  static const fs::path dir =
      fs::temp_directory_path() / ("moe_export_transfers_test_" + std::to_string(getpid()));
  return dir;
}

moe::clitest::SimResult runSim(const std::string& args) {
  return moe::clitest::runMoeSim(args, testDir());
}

// Two servers of two cards, so transfers cross HCCS, the NICs and local HBM.
fs::path tinyScenario() {
  std::ifstream in(std::string(MOE_SOURCE_DIR) + "/resources/scenarios/default.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["cluster"]["servers"] = 2;
  j["cluster"]["cards_per_server"] = 2;
  j["hardware"]["overrides"]["cards_per_server"] = 2;
  j["model"]["tokens_per_rank"] = 8;
  j["model"]["hidden"] = 256;
  j["model"]["experts"] = 8;
  j["model"]["topk"] = 2;
  j["rings"]["chunk_bytes"] = 4096;
  const fs::path p = testDir() / "tiny.json";
  fs::create_directories(testDir());
  std::ofstream(p) << j.dump(2);
  return p;
}

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(MoeSimExportTransfers, WritesOneRowPerTransferTheSameEveryRun) {
  const fs::path sc = tinyScenario(), a = testDir() / "a.csv", b = testDir() / "b.csv";
  const auto ra = runSim("run " + sc.string() + " --impl both --export-transfers " + a.string());
  ASSERT_EQ(ra.exitCode, 0) << ra.err;
  const auto rb = runSim("run " + sc.string() + " --impl both --export-transfers " + b.string());
  ASSERT_EQ(rb.exitCode, 0) << rb.err;
  const std::string text = readAll(a);
  EXPECT_EQ(text, readAll(b));
  std::istringstream in(text);
  std::string line;
  int resources = 0, phased = 0, streaming = 0;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.rfind("# resource,", 0) == 0) ++resources;
    if (line == "design,start_ps,bytes,latency_ps,path") header = true;
    if (!header || line[0] == '#' || line.rfind("design,", 0) == 0) continue;
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 4) << line;
    if (line.rfind("phased,", 0) == 0) ++phased;
    if (line.rfind("streaming,", 0) == 0) ++streaming;
  }
  EXPECT_TRUE(header);
  // 4 cards: HBM and NIC tx/rx each, HCCS one per ordered pair in a server, a DMA port per
  // core: at least the 4 * 3 + 4 fabric resources.
  EXPECT_GE(resources, 16);
  EXPECT_GT(phased, 0);
  EXPECT_GT(streaming, 0);
}

TEST(MoeSimExportTransfers, RefusesABadPathBeforeRunning) {
  const fs::path sc = tinyScenario();
  for (const std::string& bad : {std::string("\"\""), sc.string()}) {
    const auto r = runSim("run " + sc.string() + " --export-transfers " + bad);
    EXPECT_EQ(r.exitCode, 2) << bad;
    EXPECT_NE(r.err.find("--export-transfers"), std::string::npos) << r.err;
  }
}

}  // namespace
