// `moe-sim run --why`: a ranked critical-path attribution of dispatch and combine for each
// design, whose shares add up to the stage, with the same digest as a run without it.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "small_scenario.h"
#include "tests/cli/sim_process.h"

namespace fs = std::filesystem;

namespace {

using Result = moe::clitest::SimResult;

const fs::path& testDir() {
  static const fs::path dir =
      fs::temp_directory_path() / ("moe_why_cli_test_" + std::to_string(getpid()));
  return dir;
}

Result runSim(const std::string& args) {
  return moe::clitest::runMoeSim(args, testDir());
}

fs::path smallScenarioFile() {
  const fs::path p = testDir() / "small.json";
  fs::create_directories(p.parent_path());
  std::ofstream(p) << moe::clitest::smallScenarioJson().dump(2);
  return p;
}

std::string digestLine(const std::string& out) {
  const auto at = out.find("\ndigest: ");
  return at == std::string::npos ? "" : out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}

// The lines of the "why" block.
std::vector<std::string> whyLines(const std::string& out) {
  std::vector<std::string> lines;
  const auto at = out.find("\nwhy (critical path");
  if (at == std::string::npos) return lines;
  std::istringstream in(out.substr(out.find('\n', at + 1) + 1));
  std::string line;
  while (std::getline(in, line) && line.starts_with("  ")) lines.push_back(line);
  return lines;
}

// The top-level percentages of one line (its groups and "other"), outside the parts lists
// in parentheses.
double topLevelPercent(const std::string& line) {
  double sum = 0;
  int depth = 0;
  std::string number;
  for (char c : line.substr(line.find(':') + 1)) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (std::isdigit(static_cast<unsigned char>(c)) || c == '.')) {
      number += c;
      continue;
    }
    if (depth == 0 && c == '%' && !number.empty()) sum += std::stod(number);
    number.clear();
  }
  return sum;
}

}  // namespace

TEST(MoeSimRunWhy, RanksEachDesignsDispatchAndCombineWithSharesSummingToTheStage) {
  const std::string file = smallScenarioFile().string();
  const Result why = runSim("run " + file + " --impl both --why");
  ASSERT_EQ(why.exitCode, 0) << why.out << why.err;
  const std::vector<std::string> lines = whyLines(why.out);
  ASSERT_EQ(lines.size(), 4u) << why.out;
  const char* expected[] = {"  phased dispatch ", "  phased combine ", "  streaming dispatch ",
                            "  streaming combine "};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_TRUE(lines[i].starts_with(expected[i])) << lines[i];
    EXPECT_NEAR(topLevelPercent(lines[i]), 100.0, 0.3) << lines[i];
    // A role's work names what the cores were doing.
    EXPECT_NE(lines[i].find(" cores busy "), std::string::npos) << lines[i];
  }
  // The walk only reads what the run recorded: the same events, so the same digest.
  const Result plain = runSim("run " + file + " --impl both");
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  EXPECT_FALSE(digestLine(plain.out).empty());
  EXPECT_EQ(digestLine(why.out), digestLine(plain.out));
  // Without --why there is no block at all, not even its heading.
  EXPECT_EQ(plain.out.find("\nwhy ("), std::string::npos) << plain.out;
}

TEST(MoeSimRunWhy, TheFusedWorkloadIsBadInput) {
  const Result r = runSim("run --workload alltoall-matmul-rs --why");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--why"), std::string::npos) << r.err;
}
