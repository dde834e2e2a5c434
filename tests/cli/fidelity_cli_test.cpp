// `moe-sim fidelity` on inputs it cannot honour, without running a shape (each test takes
// milliseconds): --write-scenarios writes only scenarios `validate` accepts, and a benchmark
// in which no shape could run is bad input (exit 2), not a table of refusals with exit 0.
// And the blind Ascend A3 target's low-latency shapes (seconds): predictions, the CSV, and
// a line per finished shape on stderr.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli/sim_process.h"

namespace fs = std::filesystem;

namespace {

fs::path testDir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("moe_fidelity_cli_" + std::to_string(getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A CSV file's lines: the header first, then one per row.
std::vector<std::string> csvLines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

// At 10000 tokens per rank (past the 8192 limit) the normal-mode shapes used to be written
// as given, and `validate` refused every file. They are written at the stand-in token count,
// as a run substitutes it, and said so.
TEST(FidelityCli, WriteScenariosWritesOnlyScenariosThatValidate) {
  const fs::path dir = testDir("write");
  const auto w = moe::clitest::runMoeSim(
      "fidelity --mode normal --tokens 10000 --write-scenarios " + dir.string(), dir);
  ASSERT_EQ(w.exitCode, 0) << w.err;
  EXPECT_NE(w.out.find("written at 512 tokens per rank instead"), std::string::npos) << w.out;
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++files;
    const auto v = moe::clitest::runMoeSim("validate " + e.path().string(), dir);
    EXPECT_EQ(v.exitCode, 0) << e.path() << ": " << v.err;
  }
  EXPECT_EQ(files, 4);
  // Without a stand-in nothing valid is left to write: exit 2, no file.
  const fs::path none = testDir("write-none");
  const auto n = moe::clitest::runMoeSim(
      "fidelity --mode normal --tokens 10000 "
      "--stand-in-tokens 0 --write-scenarios " +
          none.string(),
      testDir("write-none-log"));
  EXPECT_EQ(n.exitCode, 2) << n.err;
  EXPECT_NE(n.err.find("error: --write-scenarios: deepep-normal-ep8 would not be a valid"),
            std::string::npos)
      << n.err;
  EXPECT_TRUE(fs::is_empty(none));
}

TEST(FidelityCli, NothingToRunIsExitTwo) {
  const fs::path dir = testDir("nothing");
  const auto r =
      moe::clitest::runMoeSim("fidelity --mode normal --tokens 10000 --stand-in-tokens 0", dir);
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("error: --tokens: no shape of --mode normal could run"), std::string::npos)
      << r.err;
}

// The blind A3 target prints predictions only and writes one CSV row per (mode, EP, stage).
TEST(FidelityCli, AscendA3TargetWritesTheCsvAndPrintsPredictionsOnly) {
  const fs::path dir = testDir("a3");
  const fs::path csv = dir / "a3.csv";
  const auto r = moe::clitest::runMoeSim(
      "fidelity --target ascend-a3 --mode low-latency --csv '" + csv.string() + "'", dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("predictions only"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DeepEP "), std::string::npos) << "no published column: " << r.out;
  // stderr is a file here, not a terminal: no redrawn "\r" progress lines in it, but one
  // line per finished shape with its prediction, so a long run's log shows each as it lands.
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  for (const char* ep : {"8", "16", "32"})
    EXPECT_NE(
        r.err.find(std::string("fidelity: low-latency EP ") + ep + " (128 tokens): dispatch "),
        std::string::npos)
        << r.err;
  const std::vector<std::string> lines = csvLines(csv);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "target,mode,ep,stage,time_us,gbps");
  for (std::size_t i = 1; i < lines.size(); ++i)
    EXPECT_EQ(lines[i].rfind("ascend-a3,low-latency,", 0), 0u) << lines[i];
  EXPECT_EQ(lines.size() - 1, 6u) << "EP 8, 16, 32 x dispatch, combine";
  const auto bad = moe::clitest::runMoeSim("fidelity --target a3", dir);
  EXPECT_EQ(bad.exitCode, 2);
}

// --min-ep and --max-ep pick a band of shapes, so a long table can be finished piecewise;
// the shapes outside it are listed as skipped, and an empty band is bad input.
TEST(FidelityCli, MinAndMaxEpRunOnlyTheShapesBetweenThem) {
  const fs::path dir = testDir("band");
  const fs::path csv = dir / "band.csv";
  const auto r = moe::clitest::runMoeSim(
      "fidelity --target ascend-a3 --mode low-latency --min-ep 16 --max-ep 16 --csv '" +
          csv.string() + "'",
      dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // The table keeps EP order: the skipped EP 8 first, then the EP 16 that ran, then EP 32.
  const auto ep8 = r.out.find("skipped: EP 8 < --min-ep 16");
  const auto ep16 = r.out.find("\n16 ");
  const auto ep32 = r.out.find("skipped: EP 32 > --max-ep 16");
  ASSERT_NE(ep8, std::string::npos) << r.out;
  ASSERT_NE(ep16, std::string::npos) << r.out;
  ASSERT_NE(ep32, std::string::npos) << r.out;
  EXPECT_LT(ep8, ep16) << r.out;
  EXPECT_LT(ep16, ep32) << r.out;
  const std::vector<std::string> lines = csvLines(csv);
  ASSERT_FALSE(lines.empty());
  for (std::size_t i = 1; i < lines.size(); ++i)
    EXPECT_EQ(lines[i].rfind("ascend-a3,low-latency,16,", 0), 0u) << lines[i];
  EXPECT_EQ(lines.size() - 1, 2u) << "EP 16 x dispatch, combine";
  const auto empty = moe::clitest::runMoeSim("fidelity --min-ep 64 --max-ep 32", dir);
  EXPECT_EQ(empty.exitCode, 2);
  EXPECT_NE(empty.err.find("error: --min-ep: must not exceed --max-ep (64 > 32)"),
            std::string::npos)
      << empty.err;
}
