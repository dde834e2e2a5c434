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
#include <utility>
#include <vector>

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

namespace {

std::vector<std::string> fileLines(const std::filesystem::path& f) {
  std::ifstream in(f);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string fileText(const std::filesystem::path& f) {
  std::ifstream in(f);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(MoeSimTune, KilledHalfwayThenResumedGivesTheUninterruptedScenarioAndReport) {
  const std::string in = tinyScenarioFile();
  const auto log = kDir / "resume.jsonl";
  const auto outWhole = kDir / "whole.json", outResumed = kDir / "resumed.json";
  std::filesystem::remove(log);
  const std::string common = "tune " + in + " --budget 16 --stage combine --log " + log.string();
  const auto whole = moe::clitest::runMoeSim(common + " --out " + outWhole.string(), kDir);
  ASSERT_EQ(whole.exitCode, 0) << whole.err << whole.out;
  const std::vector<std::string> lines = fileLines(log);
  ASSERT_EQ(lines.size(), 17u);  // the header and 16 runs
  // What a kill leaves: half the lines and the next one cut short.
  {
    std::ofstream cut(log, std::ios::trunc);
    for (std::size_t i = 0; i < lines.size() / 2; ++i) cut << lines[i] << "\n";
    cut << lines[lines.size() / 2].substr(0, 40);
  }
  const auto resumed =
      moe::clitest::runMoeSim(common + " --resume --out " + outResumed.string(), kDir);
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("7 of 16 runs read from"), std::string::npos) << resumed.err;
  EXPECT_EQ(fileText(outResumed), fileText(outWhole));
  // The reports differ only in the file each names.
  std::string report = resumed.out;
  report.replace(report.find(outResumed.string()), outResumed.string().size(), outWhole.string());
  EXPECT_EQ(report, whole.out);
  EXPECT_EQ(fileLines(log).size(), lines.size());
}

TEST(MoeSimTune, RefusesALogOfAnotherScenarioNamingTheFileAndLine) {
  const std::string in = tinyScenarioFile();
  const auto log = kDir / "other.jsonl";
  std::filesystem::remove(log);
  const auto first = moe::clitest::runMoeSim(
      "tune " + in + " --budget 3 --log " + log.string() + " --out " + (kDir / "a.json").string(),
      kDir);
  ASSERT_EQ(first.exitCode, 0) << first.err;
  // The built-in scenario is another scenario.
  const auto other = moe::clitest::runMoeSim(
      "tune --budget 3 --resume --log " + log.string() + " --out " + (kDir / "b.json").string(),
      kDir);
  EXPECT_EQ(other.exitCode, 2);
  EXPECT_NE(other.err.find(log.string() + " line 1"), std::string::npos) << other.err;
  // Another objective too; and without --resume the log is never appended to.
  const auto stage =
      moe::clitest::runMoeSim("tune " + in + " --budget 3 --stage dispatch --resume --log " +
                                  log.string() + " --out " + (kDir / "c.json").string(),
                              kDir);
  EXPECT_EQ(stage.exitCode, 2) << stage.err;
  const auto again = moe::clitest::runMoeSim(
      "tune " + in + " --budget 3 --log " + log.string() + " --out " + (kDir / "d.json").string(),
      kDir);
  EXPECT_EQ(again.exitCode, 2);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;
}

TEST(MoeSimTune, SaysWhatBoundedTheSearchAndWhatItLeftUndone) {
  const std::string in = tinyScenarioFile();
  const auto r = moe::clitest::runMoeSim(
      "tune " + in + " --budget 6 --out " + (kDir / "bounded.json").string(), kDir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("tune: objective layer; 6 engine runs of a budget of 6"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("bounds: stopped by the budget"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not done: "), std::string::npos) << r.out;
}

TEST(MoeSimTune, NumericsDifferingFromPhasedAreLabelledAndCanBeKept) {
  std::filesystem::create_directories(kDir);
  const auto in = kDir / "bf16.json";
  nlohmann::json j = nlohmann::json::parse(std::ifstream(tinyScenarioFile()));
  j["combine"] = {{"partial_dtype", "bf16"}, {"sum_local_experts", true}};
  std::ofstream(in) << j.dump();
  const auto out = kDir / "kept.json";
  const auto r = moe::clitest::runMoeSim(
      "tune " + in.string() + " --budget 12 --keep-numerics --out " + out.string(), kDir);
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  const std::string note =
      "streaming with bf16 partials and local sums vs phased fp32: different numerics";
  EXPECT_NE(r.out.find("numerics: streaming (given) vs phased: " + note), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("numerics: streaming (tuned) vs phased: " + note), std::string::npos);
  // The "vs phased" line itself says it.
  const auto vs = r.out.find("streaming combine (tuned) vs phased: ");
  ASSERT_NE(vs, std::string::npos) << r.out;
  EXPECT_NE(r.out.substr(vs, r.out.find('\n', vs) - vs).find(" - " + note), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("combine.partial_dtype = bf16: kept as given"), std::string::npos) << r.out;
  const nlohmann::json tuned = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(tuned.at("combine").at("partial_dtype"), "bf16");
  EXPECT_EQ(tuned.at("combine").at("sum_local_experts"), true);
  // Fp32 and no local sums on both sides: no label.
  const auto plain = moe::clitest::runMoeSim(
      "tune " + tinyScenarioFile() + " --budget 3 --out " + (kDir / "plain.json").string(), kDir);
  ASSERT_EQ(plain.exitCode, 0);
  EXPECT_EQ(plain.out.find("different numerics"), std::string::npos) << plain.out;
}

TEST(MoeSimTune, BadBoundsStageAndResumeAreBadInputNamingTheFlag) {
  const std::string out = " --out " + (kDir / "bad.json").string();
  for (const auto& [args, flag] :
       std::vector<std::pair<std::string, std::string>>{{"--time-limit 10x", "--time-limit"},
                                                        {"--time-limit 0s", "--time-limit"},
                                                        {"--time-limit -5m", "--time-limit"},
                                                        {"--stage experts", "--stage"},
                                                        {"--resume", "--resume"},
                                                        {"--budget 1", "--budget"}}) {
    const auto r = moe::clitest::runMoeSim("tune " + args + out, kDir);
    EXPECT_EQ(r.exitCode, 2) << args;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << ": " << r.err;
  }
}

TEST(MoeSimTiling, ExplainsEachValueAndPointsToTune) {
  const auto r = moe::clitest::runMoeSim("tiling", kDir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* field : {"rings.dispatch: chunk", "rings.combine: chunk",
                            "combine.rdma_batch_bytes", "UB per core", "moe-sim tune"})
    EXPECT_NE(r.err.find(field), std::string::npos) << field << "\n" << r.err;
}

// The model's explanation: per stage each role's predicted time and what limits it, the
// bottleneck and the runner-up, and the routing it worked from.
TEST(MoeSimTiling, PrintsEachRolesPredictedTimeTheBottleneckAndTheRunnerUp) {
  const auto r = moe::clitest::runMoeSim("tiling", kDir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* stage : {"rings.dispatch", "rings.combine"}) {
    const std::string model = std::string(stage) + " model: sender ";
    const auto at = r.err.find(model);
    ASSERT_NE(at, std::string::npos) << r.err;
    const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
    for (const char* part :
         {" us (", "forwarder ", "receiver ", "fill ", ": stage ", "bottleneck "})
      EXPECT_NE(line.find(part), std::string::npos) << part << ": " << line;
    EXPECT_NE(r.err.find(std::string(stage) + " runner-up: chunk "), std::string::npos) << r.err;
  }
  EXPECT_NE(r.err.find("routing: a token's top-"), std::string::npos) << r.err;
}

// Bad input is still refused before any proposal, naming the field.
TEST(MoeSimTiling, BadInputExitsTwoNamingTheField) {
  namespace fs = std::filesystem;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(tinyScenarioFile()));
  j["model"]["topk"] = 0;
  const fs::path bad = kDir / "tiling-bad-topk.json";
  std::ofstream(bad) << j.dump(2);
  const auto r = moe::clitest::runMoeSim("tiling " + bad.string(), kDir);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("model.topk"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
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
                          " tune in/s.json --budget 2 --threads 1 --out sub/x.json >/dev/null 2>&1";
  fs::create_directories(dir / "sub");
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const nlohmann::json tuned = nlohmann::json::parse(std::ifstream(dir / "sub" / "x.json"));
  EXPECT_EQ(tuned["routing"]["trace_file"], "../in/ids.csv");
  const auto v = moe::clitest::runMoeSim("validate " + (dir / "sub" / "x.json").string(), kDir);
  EXPECT_EQ(v.exitCode, 0) << v.err;
}

// The chunk's explanation says when no chunk of the grid fits UB and the proposal falls
// back to one record per chunk.
TEST(MoeSimTiling, TheChunkExplanationNamesTheRuleThatPickedIt) {
  namespace fs = std::filesystem;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(tinyScenarioFile()));
  j["hardware"]["overrides"]["ub_bytes"] = 32768;  // no 16 KiB chunk can be staged twice
  j["model"]["hidden"] = 2048;
  const fs::path small = kDir / "small-ub.json";
  std::ofstream(small) << j.dump(2);
  const auto r = moe::clitest::runMoeSim("tiling " + small.string(), kDir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json rings = nlohmann::json::parse(r.out);
  const nlohmann::json& dispatch = rings.contains("dispatch") ? rings.at("dispatch") : rings;
  EXPECT_LT(dispatch.at("chunk_bytes").get<std::int64_t>(), 16384);
  EXPECT_NE(r.err.find("one record per chunk, because no chunk of 16..512 KiB fits UB"),
            std::string::npos)
      << r.err;
  // The default picks from the grid and does not say so.
  const auto d = moe::clitest::runMoeSim("tiling", kDir);
  ASSERT_EQ(d.exitCode, 0) << d.err;
  EXPECT_EQ(d.err.find("one record per chunk"), std::string::npos) << d.err;
}
