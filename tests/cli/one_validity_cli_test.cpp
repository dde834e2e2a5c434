// One decision on validity: every command that takes a scenario (validate, run, tiling, tune,
// export-vectors, each sweep point) refuses the same scenarios with the same message, the
// routing trace's contents included. Before, `validate` said ok where `run` exited 2 on a
// missing, out-of-range, BOM'd, wrong-dtype or directory trace, and `tiling` exited 0 on
// scenarios `validate` refused.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sim_process.h"
#include "small_scenario.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path testDir() {
  const fs::path d = fs::temp_directory_path() / ("moe_validity_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

fs::path writeFile(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

// The hostile-input tests' small shape: 2 servers x 4 cards, 16 tokens, top-4 of 16 experts,
// so 128 tokens in all.
constexpr int kTokens = 8 * 16;

json smallScenario() {
  return moe::clitest::smallScenarioJson();
}

// `rows` rows of four distinct ids in [0, 16).
std::string traceCsv(int rows) {
  std::string text;
  for (int t = 0; t < rows; ++t)
    text += std::to_string(t % 16) + "," + std::to_string((t + 1) % 16) + "," +
            std::to_string((t + 2) % 16) + "," + std::to_string((t + 3) % 16) + "\n";
  return text;
}

// A version-1.0 .npy of `dtype` and shape [rows, 4], zero-filled (no NumPy needed).
std::string npyBytes(const std::string& dtype, int rows, int elementBytes) {
  std::string header = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", 4), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out += std::string(static_cast<std::size_t>(rows) * 4 * elementBytes, '\0');
  return out;
}

// A scenario routed by `traceName` (relative to the scenario's directory).
fs::path traceScenario(const fs::path& dir, const std::string& traceName) {
  json j = smallScenario();
  j["routing"]["distribution"] = "trace";
  j["routing"]["trace_file"] = traceName;
  return writeFile(dir / "scenario.json", j.dump(2));
}

fs::path editedScenario(const fs::path& dir, const std::function<void(json&)>& edit) {
  json j = smallScenario();
  edit(j);
  return writeFile(dir / "scenario.json", j.dump(2));
}

struct BadInput {
  std::string name;
  std::string expectedInMessage;                  // the field the message must name
  std::function<fs::path(const fs::path&)> make;  // writes the case into a directory
};

std::vector<BadInput> badInputs() {
  return {
      {"missing-trace", "routing.trace_file",
       [](const fs::path& d) { return traceScenario(d, "absent.csv"); }},
      {"out-of-range-trace-id", "routing.trace_file",
       [](const fs::path& d) {
         std::string csv = traceCsv(kTokens);
         csv.replace(0, 1, "16");  // the first row's first id: one past the last expert
         writeFile(d / "ids.csv", csv);
         return traceScenario(d, "ids.csv");
       }},
      {"byte-order-mark-trace", "routing.trace_file",
       [](const fs::path& d) {
         writeFile(d / "ids.csv", "\xEF\xBB\xBF" + traceCsv(kTokens));
         return traceScenario(d, "ids.csv");
       }},
      {"float-dtype-trace", "routing.trace_file",
       [](const fs::path& d) {
         writeFile(d / "ids.npy", npyBytes("<f4", kTokens, 4));
         return traceScenario(d, "ids.npy");
       }},
      {"directory-trace", "routing.trace_file",
       [](const fs::path& d) {
         fs::create_directories(d / "ids.csv");
         return traceScenario(d, "ids.csv");
       }},
      {"short-trace", "routing.trace_file",
       [](const fs::path& d) {
         writeFile(d / "ids.csv", traceCsv(1));
         return traceScenario(d, "ids.csv");
       }},
      // Plain scenario errors: one caught while reading, one by the cross-field check.
      {"topk-above-experts", "model.topk",
       [](const fs::path& d) {
         return editedScenario(d, [](json& j) { j["model"]["topk"] = 17; });
       }},
      {"eplb-instance-out-of-range", "eplb.table",
       [](const fs::path& d) {
         return editedScenario(d, [](json& j) {
           json table = json::array();
           for (int e = 0; e < 16; ++e) table.push_back({1, e == 0 ? 999 : e});
           j["eplb"]["table"] = table;
         });
       }},
      {"active-tokens-without-pruning", "eplb.active_tokens",
       [](const fs::path& d) {
         return editedScenario(d, [](json& j) { j["eplb"]["active_tokens"] = 8; });
       }},
  };
}

// The "error: ..." line of a command's stderr ("" if there is none).
std::string errorLine(const std::string& err) {
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("error: ", 0) == 0) return line;
  return "";
}

}  // namespace

TEST(OneValidity, EveryCommandRefusesEachInvalidScenarioWithTheSameMessage) {
  for (const BadInput& bad : badInputs()) {
    const fs::path dir = testDir() / bad.name;
    fs::remove_all(dir);
    const fs::path sc = bad.make(dir);
    const moe::clitest::SimResult validate =
        moe::clitest::runMoeSim("validate " + sc.string(), dir);
    ASSERT_EQ(validate.exitCode, 2) << bad.name << ": " << validate.out << validate.err;
    const std::string message = errorLine(validate.err);
    ASSERT_NE(message.find(bad.expectedInMessage), std::string::npos)
        << bad.name << ": " << validate.err;
    const std::vector<std::string> commands = {
        "run " + sc.string(),
        "tiling " + sc.string(),
        "tune " + sc.string() + " --budget 2 --out " + (dir / "tuned.json").string(),
        "export-vectors " + sc.string() + " --out " + (dir / "vectors").string(),
    };
    for (const std::string& args : commands) {
      const moe::clitest::SimResult r = moe::clitest::runMoeSim(args, dir);
      EXPECT_EQ(r.exitCode, 2) << bad.name << ": " << args << "\n" << r.err;
      EXPECT_EQ(errorLine(r.err), message) << bad.name << ": " << args;
    }
    EXPECT_FALSE(fs::exists(dir / "tuned.json")) << bad.name;
    EXPECT_FALSE(fs::exists(dir / "vectors")) << bad.name;

    // A sweep over this scenario: refused as a whole (a rule of the base file), or every
    // point's rows are "invalid" with the message validate gives.
    const fs::path sweep = writeFile(
        dir / "sweep.json",
        json{{"base", sc.string()}, {"axes", {{{"field", "seed"}, {"values", {1, 2}}}}}}.dump());
    const fs::path rows = dir / "rows.jsonl";
    const moe::clitest::SimResult s =
        moe::clitest::runMoeSim("sweep " + sweep.string() + " --jsonl " + rows.string(), dir);
    if (s.exitCode == 2) {
      EXPECT_EQ(errorLine(s.err), message) << bad.name << ": sweep";
      continue;
    }
    EXPECT_EQ(s.exitCode, 0) << bad.name << ": sweep\n" << s.err;
    std::ifstream in(rows);
    int count = 0;
    for (std::string line; std::getline(in, line); ++count) {
      const json row = json::parse(line);
      EXPECT_EQ(row["status"], "invalid") << bad.name << ": " << line;
      EXPECT_EQ("error: " + row["message"].get<std::string>(), message) << bad.name;
    }
    EXPECT_GT(count, 0) << bad.name << ": the sweep wrote no rows";
  }
}

TEST(OneValidity, TilingFixesAScenarioRefusedOnlyForItsOwnRingsAndSaysSo) {
  const fs::path dir = testDir() / "own-rings";
  fs::remove_all(dir);
  // Eight 4 MiB chunks per ring do not fit the sender's UB: validate refuses the rings, and
  // tiling proposes ones that fit, as validate then accepts.
  const fs::path sc = editedScenario(dir, [](json& j) { j["rings"]["chunk_bytes"] = 4 << 20; });
  const moe::clitest::SimResult validate = moe::clitest::runMoeSim("validate " + sc.string(), dir);
  ASSERT_EQ(validate.exitCode, 2) << validate.err;
  const moe::clitest::SimResult tiling = moe::clitest::runMoeSim("tiling " + sc.string(), dir);
  ASSERT_EQ(tiling.exitCode, 0) << tiling.err;
  EXPECT_NE(tiling.err.find("note: the scenario's own rings are refused ("), std::string::npos)
      << tiling.err;
  json j = json::parse(std::ifstream(sc));
  j["rings"] = json::parse(tiling.out);
  writeFile(sc, j.dump(2));
  const moe::clitest::SimResult again = moe::clitest::runMoeSim("validate " + sc.string(), dir);
  EXPECT_EQ(again.exitCode, 0) << again.err;
}

// eplb.active_tokens only marks the tokens pruning applies to: without a threshold it changed
// nothing (the same digest for 0, 1 and unset). The scenario refuses it, as `op update-expert`
// refuses an active_mask without pruning, naming both fields.
TEST(OneValidity, ActiveTokensWithoutAPruningThresholdIsRefusedNamingBothFields) {
  const fs::path dir = testDir() / "active-tokens";
  fs::remove_all(dir);
  const fs::path alone = editedScenario(dir, [](json& j) { j["eplb"]["active_tokens"] = 0; });
  const moe::clitest::SimResult r = moe::clitest::runMoeSim("run " + alone.string(), dir);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("error: eplb.active_tokens: requires eplb.pruning_threshold"),
            std::string::npos)
      << r.err;
  const fs::path withPruning = editedScenario(dir, [](json& j) {
    j["eplb"]["active_tokens"] = 8;
    j["eplb"]["pruning_threshold"] = {0.0, 0.05, 0.1, 0.2};
  });
  const moe::clitest::SimResult ok =
      moe::clitest::runMoeSim("validate " + withPruning.string(), dir);
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
}

// A trace shorter than the run's tokens used to be repeated without a word; now it is refused
// with both counts, and a trace of exactly one row per token runs.
TEST(OneValidity, ATraceWithFewerRowsThanTokensIsRefusedAndOneRowPerTokenRuns) {
  const fs::path dir = testDir() / "trace-rows";
  fs::remove_all(dir);
  writeFile(dir / "ids.csv", traceCsv(kTokens - 1));
  const fs::path sc = traceScenario(dir, "ids.csv");
  const moe::clitest::SimResult shortRun = moe::clitest::runMoeSim("run " + sc.string(), dir);
  EXPECT_EQ(shortRun.exitCode, 2) << shortRun.err;
  EXPECT_NE(shortRun.err.find("holds 127 token rows, fewer than the run's 128 tokens"),
            std::string::npos)
      << shortRun.err;
  writeFile(dir / "ids.csv", traceCsv(kTokens));
  const moe::clitest::SimResult full = moe::clitest::runMoeSim("run " + sc.string(), dir);
  EXPECT_EQ(full.exitCode, 0) << full.err;
}

// MoeUpdateExpert's validator checks the scenario's table; its message names the scenario
// field (eplb.table[r][c]), not the operator's argument under the scenario's section
// (eplb.eplb_table).
TEST(OneValidity, AnEplbTableErrorNamesTheScenarioFieldNotTheOperatorArgument) {
  const fs::path dir = testDir() / "eplb-table";
  fs::remove_all(dir);
  const fs::path sc = editedScenario(dir, [](json& j) {
    json table = json::array();
    for (int e = 0; e < 16; ++e) table.push_back({1, e == 3 ? 999 : e});
    j["eplb"]["table"] = table;
  });
  const moe::clitest::SimResult r = moe::clitest::runMoeSim("validate " + sc.string(), dir);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("error: eplb.table[3]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("eplb_table"), std::string::npos) << r.err;
}
