// `moe-sim tune` and `moe-sim tiling` as a user runs them: a small scenario, a small budget
// (these also run under ASan), the tuned scenario written and loadable, bad flags refused.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
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

// A scenario's relative trace path is read from the scenario file's directory. `tune
// --out sub/x.json` used to copy the loaded path (relative to the working directory) into
// x.json, where it no longer resolved; now it is rewritten relative to x.json's directory.
TEST(MoeSimTune, ARelativeTracePathStillResolvesFromTheTunedFilesDirectory) {
  namespace fs = std::filesystem;
  const fs::path dir = kDir / "relative-trace";
  fs::remove_all(dir);
  fs::create_directories(dir / "in");
  nlohmann::json j = nlohmann::json::parse(std::ifstream(tinyScenarioFile()));
  j["routing"]["distribution"] = "trace";
  j["routing"]["trace_file"] = "ids.csv";
  std::ofstream(dir / "in" / "s.json") << j.dump(2);
  {
    std::ofstream ids(dir / "in" / "ids.csv");
    for (int t = 0; t < 4 * 16; ++t)
      ids << t % 8 << "," << (t + 1) % 8 << "," << (t + 2) % 8 << "," << (t + 3) % 8 << "\n";
  }
  // Relative paths on the command line, from `dir`, as a user types them.
  const std::string cmd = "cd '" + dir.string() + "' && " + std::string(MOE_SIM_PATH) +
                          " tune in/s.json --budget 1 --threads 1 --out sub/x.json >/dev/null 2>&1";
  fs::create_directories(dir / "sub");
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const nlohmann::json tuned = nlohmann::json::parse(std::ifstream(dir / "sub" / "x.json"));
  EXPECT_EQ(tuned["routing"]["trace_file"], "../in/ids.csv");
  const auto v = moe::clitest::runMoeSim("validate " + (dir / "sub" / "x.json").string(), kDir);
  EXPECT_EQ(v.exitCode, 0) << v.err;
}

// The chunk's explanation follows the branch that picked it: a size of the 512..64 KiB
// ladder, or (no ladder size fits UB) one record per chunk, with the UB need that ruled the
// ladder out. It used to say "the largest of 512/256/128/64 KiB" beside a 1088 B chunk.
TEST(MoeSimTiling, TheChunkExplanationNamesTheRuleThatPickedIt) {
  namespace fs = std::filesystem;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(tinyScenarioFile()));
  j["hardware"]["overrides"]["ub_bytes"] = 65536;  // a 64 KiB chunk cannot be staged
  const fs::path small = kDir / "small-ub.json";
  std::ofstream(small) << j.dump(2);
  const auto r = moe::clitest::runMoeSim("tiling " + small.string(), kDir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::int64_t chunk = nlohmann::json::parse(r.out).at("chunk_bytes");
  EXPECT_LT(chunk, 65536);
  const std::string line =
      "rings.chunk_bytes: " + std::to_string(chunk) + " B: one record per chunk";
  EXPECT_NE(r.err.find(line), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no size of 512/256/128/64 KiB fits UB"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("the largest of"), std::string::npos) << r.err;
  // The default picks from the ladder and says so.
  const auto d = moe::clitest::runMoeSim("tiling", kDir);
  ASSERT_EQ(d.exitCode, 0) << d.err;
  EXPECT_NE(d.err.find("rings.chunk_bytes: 64 KiB: the largest of 512/256/128/64 KiB"),
            std::string::npos)
      << d.err;
}
