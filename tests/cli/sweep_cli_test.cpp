// `moe-sim sweep` as a user runs it: rows per point and design in point order whatever -j
// is, an invalid point reported in its rows (field and rule) while the sweep completes,
// --resume finishing a stopped sweep to the same bytes, and a bad sweep file refused with
// its key's path (exit 2).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/sim_process.h"

namespace fs = std::filesystem;

namespace {

// Per process: ctest may run these tests in parallel processes.
const fs::path kDir =
    fs::temp_directory_path() / ("moe_sweep_cli_test_" + std::to_string(getpid()));
struct RemoveAtExit {
  ~RemoveAtExit() {
    std::error_code ec;
    fs::remove_all(kDir, ec);
  }
} removeAtExit;
const std::string kSmall =
    std::string(MOE_SOURCE_DIR) + "/examples/sweeps/small-rings-with-invalid.json";

// `moe-sim sweep ARGS`.
moe::clitest::SimResult sim(const std::string& args) {
  return moe::clitest::runMoeSim("sweep " + args, kDir);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  for (std::string f; std::getline(s, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

fs::path writeSweep(const std::string& name, const nlohmann::json& j) {
  fs::create_directories(kDir);
  const fs::path p = kDir / name;
  std::ofstream(p) << j.dump(2);
  return p;
}

// The small sweep at -j 2 (CSV and JSON lines) and at -j 1: 4 points x 2 designs. Each is
// run at most once per process, on first use (ctest starts one process per test, so a
// suite-wide setup would run both sweeps for every test).
const moe::clitest::SimResult& sweepJ2() {
  static const moe::clitest::SimResult r = [] {
    fs::create_directories(kDir);
    return sim(kSmall + " -j 2 --csv '" + (kDir / "j2.csv").string() + "' --jsonl '" +
               (kDir / "j2.jsonl").string() + "'");
  }();
  return r;
}
const moe::clitest::SimResult& sweepJ1() {
  static const moe::clitest::SimResult r = [] {
    fs::create_directories(kDir);
    return sim(kSmall + " -j 1 --csv '" + (kDir / "j1.csv").string() + "'");
  }();
  return r;
}

}  // namespace

TEST(SweepCli, WritesOneRowPerPointAndDesignWithAxesAndStageTimes) {
  ASSERT_EQ(sweepJ2().exitCode, 0) << sweepJ2().err;
  const auto rows = lines(slurp(kDir / "j2.csv"));
  ASSERT_EQ(rows.size(), 1u + 4 * 2) << slurp(kDir / "j2.csv");
  const auto header = split(rows[0]);
  ASSERT_GE(header.size(), 8u);
  EXPECT_EQ(header[0], "point");
  EXPECT_EQ(header[1], "rings.queue_chunks");
  EXPECT_EQ(header[2], "rings.sender_cores");
  EXPECT_EQ(header[3], "design");
  for (const char* col :
       {"update-expert_us", "dispatch_us", "experts_us", "combine_us", "dispatch_buffer_bytes",
        "combine_buffer_bytes", "peak_ring_occupancy_bytes", "rdma_posts", "events", "verification",
        "digest"})
    EXPECT_NE(std::find(header.begin(), header.end(), col), header.end()) << col;
  // Point order, then design order; the last axis changes fastest.
  const std::vector<std::string> expect{"0,2,4,phased",     "0,2,4,streaming", "1,2,64,phased",
                                        "1,2,64,streaming", "2,4,4,phased",    "2,4,4,streaming",
                                        "3,4,64,phased",    "3,4,64,streaming"};
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  for (std::size_t i = 0; i < expect.size(); ++i) {
    EXPECT_EQ(rows[i + 1].rfind(expect[i] + ",", 0), 0u) << rows[i + 1];
    const auto f = split(rows[i + 1]);
    ASSERT_EQ(f.size(), header.size()) << rows[i + 1];
    const bool invalid = f[2] == "64";
    if (invalid) continue;
    EXPECT_EQ(f[col("status")], "ok") << rows[i + 1];
    EXPECT_EQ(f[col("verification")], "passed") << rows[i + 1];
    EXPECT_GT(std::stod(f[col("dispatch_us")]), 0.0) << rows[i + 1];
    EXPECT_GT(std::stod(f[col("combine_us")]), 0.0) << rows[i + 1];
    EXPECT_GT(std::stoll(f[col("events")]), 0) << rows[i + 1];
    EXPECT_EQ(f[col("digest")].size(), 16u) << rows[i + 1];
    // Streaming rides the rings; phased reserves whole windows and no ring.
    if (f[3] == "streaming") {
      EXPECT_GT(std::stoll(f[col("peak_ring_occupancy_bytes")]), 0);
    }
  }
  // A deeper ring changes the streaming run, so its digest too.
  EXPECT_NE(split(rows[2])[col("digest")], split(rows[6])[col("digest")]);
}

TEST(SweepCli, InvalidPointIsARowNamingFieldAndRuleAndTheSweepCompletes) {
  ASSERT_EQ(sweepJ2().exitCode, 0) << sweepJ2().err;
  EXPECT_NE(sweepJ2().err.find("2 invalid"), std::string::npos) << sweepJ2().err;
  bool sawInvalid = false;
  std::ifstream in(kDir / "j2.jsonl");
  int n = 0;
  for (std::string l; std::getline(in, l); ++n) {
    const auto row = nlohmann::json::parse(l);
    if (row["rings.sender_cores"] != 64) {
      EXPECT_EQ(row["status"], "ok") << l;
      continue;
    }
    sawInvalid = true;
    EXPECT_EQ(row["status"], "invalid") << l;
    const std::string msg = row["message"];
    // The field path first ("rings": the rule spans its three core counts), then the rule.
    EXPECT_EQ(msg.rfind("rings: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("sender_cores"), std::string::npos) << msg;
    EXPECT_NE(msg.find("aiv_cores"), std::string::npos) << msg;
    EXPECT_TRUE(row["dispatch_us"].is_null()) << l;
    EXPECT_EQ(row["verification"], "skipped") << l;
  }
  EXPECT_EQ(n, 8);
  EXPECT_TRUE(sawInvalid);
}

TEST(SweepCli, RowBytesDoNotDependOnJobs) {
  ASSERT_EQ(sweepJ2().exitCode, 0) << sweepJ2().err;
  ASSERT_EQ(sweepJ1().exitCode, 0) << sweepJ1().err;
  EXPECT_EQ(slurp(kDir / "j1.csv"), slurp(kDir / "j2.csv"));
  EXPECT_TRUE(sweepJ1().out.empty()) << "stdout stays empty with --csv";
  EXPECT_EQ(sweepJ1().err.find("\033["), std::string::npos) << "no progress bar off a terminal";
}

TEST(SweepCli, ResumeRunsOnlyMissingPointsAndGivesTheSameFile) {
  ASSERT_EQ(sweepJ2().exitCode, 0) << sweepJ2().err;
  const std::string full = slurp(kDir / "j2.csv");
  const auto all = lines(full);
  ASSERT_EQ(all.size(), 9u);
  // As a stopped run leaves it: rows in completion order, a point with one of its two rows,
  // and a torn last line.
  const fs::path partial = kDir / "partial.csv";
  std::ofstream(partial, std::ios::binary) << all[0] << "\n"
                                           << all[5] << "\n"
                                           << all[6] << "\n"
                                           << all[1] << "\n"
                                           << all[3].substr(0, 7);
  const auto r = sim(kSmall + " -j 1 --resume --csv '" + partial.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("1 already in the output"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 point(s) run"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(partial), full);
}

TEST(SweepCli, ResumeRefusesAnotherSweepsFile) {
  ASSERT_EQ(sweepJ2().exitCode, 0) << sweepJ2().err;
  nlohmann::json j = nlohmann::json::parse(slurp(kSmall));
  j["axes"][0]["values"] = {3, 5};
  const fs::path other = writeSweep("other.json", j);
  const fs::path copy = kDir / "copy.csv";
  fs::copy_file(kDir / "j2.csv", copy, fs::copy_options::overwrite_existing);
  const auto r = sim(other.string() + " --resume --csv '" + copy.string() + "'");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--csv: the file is another sweep's output"), std::string::npos) << r.err;
}

TEST(SweepCliInput, BadSweepFilesExit2NamingTheKey) {
  const nlohmann::json good = nlohmann::json::parse(slurp(kSmall));
  struct Case {
    const char* name;
    std::function<void(nlohmann::json&)> edit;
    const char* expect;
  };
  const std::vector<Case> cases{
      {"unknown-key", [](auto& j) { j["axis"] = 1; }, "axis: unknown key"},
      {"no-axes", [](auto& j) { j.erase("axes"); }, "axes: is required"},
      {"not-a-field", [](auto& j) { j["axes"][0]["field"] = "rings.chunk"; },
       "axes[0].field: \"rings.chunk\" is not a scenario field"},
      {"design-axis", [](auto& j) { j["axes"][0]["field"] = "dispatch_impl"; },
       "axes[0].field: \"dispatch_impl\" is not a scenario field"},
      {"step-zero",
       [](auto& j) {
         j["axes"][0].erase("values");
         j["axes"][0]["range"] = {{"from", 2}, {"to", 8}, {"step", 0}};
       },
       "axes[0].range.step: must not be 0"},
      {"step-away",
       [](auto& j) {
         j["axes"][0].erase("values");
         j["axes"][0]["range"] = {{"from", 2}, {"to", 8}, {"step", -1}};
       },
       "axes[0].range.step: must lead from"},
      {"both",
       [](auto& j) {
         j["axes"][0]["range"] = {{"from", 2}, {"to", 8}, {"step", 2}};
       },
       "axes[0]: needs exactly one of"},
      {"too-many",
       [](auto& j) {
         j["axes"][0].erase("values");
         j["axes"][0]["range"] = {{"from", 0}, {"to", 1000000}, {"step", 1}};
       },
       "axes[0].range: gives more than 10000 values"},
      {"other-workload", [](auto& j) { j["designs"] = {"pipelined"}; },
       "designs[0]: \"pipelined\" is not a design of the base scenario's workload"},
      {"twice",
       [](auto& j) {
         j["designs"] = {"phased", "phased"};
       },
       "designs[1]: \"phased\" is listed twice"},
      {"bad-base", [](auto& j) { j["base"]["model"]["hidden"] = -1; }, "base.model.hidden: "},
      {"verify-type", [](auto& j) { j["verify"] = "yes"; }, "verify: must be true or false"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = good;
    c.edit(j);
    const fs::path f = writeSweep(std::string(c.name) + ".json", j);
    const auto r = sim(f.string() + " --csv '" + (kDir / "never.csv").string() + "'");
    EXPECT_EQ(r.exitCode, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(kDir / "never.csv")) << c.name;
  }
}
