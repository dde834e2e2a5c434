// `moe-sim tune` and `moe-sim tiling` as a user runs them: a small scenario, a small budget
// (these also run under ASan), the tuned scenario written and loadable, bad flags refused.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/sim_process.h"

namespace {

// One directory per test process: ctest runs these tests in parallel.
const std::filesystem::path kDir =
    std::filesystem::temp_directory_path() / ("moe_tune_cli_test_" + std::to_string(getpid()));

std::string tinyScenarioFile() {
  std::filesystem::create_directories(kDir);
  const std::filesystem::path f = kDir / "tiny.json";
  std::ofstream(f) << R"({"name": "tiny", "cluster": {"servers": 2, "cards_per_server": 2},
    "hardware": {"profile": "ascend-910b3", "overrides": {"cards_per_server": 2}},
    "model": {"tokens_per_rank": 16, "hidden": 64, "experts": 8, "topk": 4, "intermediate": 32},
    "rings": {"chunk_bytes": 2048, "queue_chunks": 4, "sender_cores": 2, "forwarder_cores": 2,
              "receiver_cores": 2}})";
  return f.string();
}

}  // namespace

TEST(MoeSimTune, WritesATunedScenarioThatIsNoSlowerAndRuns) {
  const std::string in = tinyScenarioFile();
  const std::string out = (kDir / "tuned.json").string();
  const auto r = moe::clitest::runMoeSim("tune " + in + " --budget 3 --out " + out, kDir);
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("best found:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("phased"), std::string::npos);
  EXPECT_NE(r.out.find("combine.rdma_batch_bytes = "), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(j.at("model").at("hidden"), 64);
  const auto again = moe::clitest::runMoeSim("validate " + out, kDir);
  EXPECT_EQ(again.exitCode, 0) << again.err;
  // The same seed and budget print the same report.
  const auto twice =
      moe::clitest::runMoeSim("tune " + in + " --budget 3 --threads 1 --out " + out, kDir);
  EXPECT_EQ(twice.out, r.out);
}

TEST(MoeSimTune, BadBudgetIsBadInputNamingTheFlag) {
  const auto r = moe::clitest::runMoeSim("tune --budget 0 --out /tmp/x.json", kDir);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--budget"), std::string::npos) << r.err;
}

TEST(MoeSimTiling, ExplainsEachValueAndPointsToTune) {
  const auto r = moe::clitest::runMoeSim("tiling", kDir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* field : {"rings.chunk_bytes", "rings.queue_chunks", "rings.forwarder_cores",
                            "combine.rdma_batch_bytes", "UB per core", "moe-sim tune"})
    EXPECT_NE(r.err.find(field), std::string::npos) << field << "\n" << r.err;
}
