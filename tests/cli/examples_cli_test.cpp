// Every scenario shipped in examples/scenarios/ passes `moe-sim validate` and runs to a
// verified end with `moe-sim run`, as a user trying them would. (Lesson scenarios are
// validated when the lessons are parsed and run by the workbench's lesson test.)

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Ran {
  int exitCode;
  std::string out;
};

Ran run(const std::string& args) {
  const std::string cmd = std::string(MOE_SIM_PATH) + " " + args + " 2>&1";
  Ran r{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::vector<std::string> examples() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(MOE_SOURCE_DIR) / "examples" / "scenarios"))
    if (e.path().extension() == ".json") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

// One test per file, so each gets its own time budget (the 8-server one is the longest).
class Example : public testing::TestWithParam<std::string> {};

TEST_P(Example, ValidatesAndRuns) {
  const fs::path f = fs::path(MOE_SOURCE_DIR) / "examples" / "scenarios" / GetParam();
  const Ran v = run("validate " + f.string());
  EXPECT_EQ(v.exitCode, 0) << v.out;
  const Ran r = run("run " + f.string() + " --impl streaming");
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("digest: "), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Shipped, Example, testing::ValuesIn(examples()),
                         [](const testing::TestParamInfo<std::string>& i) {
                           std::string name = i.param.substr(0, i.param.size() - 5);
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(Examples, AtLeastFiveAreShipped) {
  EXPECT_GE(examples().size(), 5u);
}

// tiny-rings keeps its purpose: rings so small that writers wait for space (back-pressure)
// and every ring fills to its capacity, so it wraps many times.
TEST(Examples, TinyRingsFillUpAndWaitForSpace) {
  const Ran r =
      run("run " + (fs::path(MOE_SOURCE_DIR) / "examples/scenarios/tiny-rings.json").string() +
          " --impl streaming");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("peak ring occupancy 8384 of 8384 B"), std::string::npos) << r.out;
  // The streaming senders' wait-space (the 4th number of their rows in the per-stage
  // table: design, stage, role, copy, vector, cube, wait-space, ...) is far from zero.
  std::istringstream lines(r.out);
  std::string line;
  double waitSpace = 0;
  int senderRows = 0;
  while (std::getline(lines, line)) {
    std::istringstream row(line);
    std::string design, stage, role;
    double copy = 0, vector = 0, cube = 0, space = 0;
    if (!(row >> design >> stage >> role >> copy >> vector >> cube >> space)) continue;
    if (design != "streaming" || role != "sender") continue;
    ++senderRows;
    waitSpace += space;
  }
  EXPECT_GE(senderRows, 2) << r.out;  // notify, dispatch and combine senders
  EXPECT_GT(waitSpace, 1000.0) << r.out;
}

// `moe-sim fidelity --write-scenarios DIR` writes the shapes of --mode and runs nothing; a
// directory that does not exist is refused with exit 2 and the option's name.
TEST(Examples, FidelityWritesItsShapesAsScenarioFiles) {
  const fs::path dir = fs::temp_directory_path() / ("moe-fidelity-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const Ran w = run("fidelity --mode normal --write-scenarios " + dir.string());
  ASSERT_EQ(w.exitCode, 0) << w.out;
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    const Ran v = run("validate " + e.path().string());
    EXPECT_EQ(v.exitCode, 0) << e.path() << ": " << v.out;
  }
  EXPECT_EQ(files, 4);  // EP 8, 16, 32, 64
  EXPECT_TRUE(fs::exists(dir / "deepep-normal-ep8.json")) << w.out;
  fs::remove_all(dir);
  const Ran bad = run("fidelity --write-scenarios " + (dir / "missing").string());
  EXPECT_EQ(bad.exitCode, 2) << bad.out;
  EXPECT_NE(bad.out.find("--write-scenarios"), std::string::npos) << bad.out;
}
