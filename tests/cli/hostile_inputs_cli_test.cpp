// Hostile inputs, round two: deep JSON refused at once, stdout write errors reported, out of
// memory reported (never an abort), NUL and control characters refused or escaped, bf16
// overflow refused, and outputs that would overwrite an input refused.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>
#include "small_scenario.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Result {
  int exitCode = -1;  // -1: killed by a signal
  std::string out, err;
};

fs::path testDir() {
  const fs::path d = fs::temp_directory_path() / ("moe_hostile_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `prefix moe-sim args` in sh under `timeout 60`; stdout goes to `stdoutTo` (a file
// that is read back unless it is a device such as /dev/full).
Result runSim(const std::string& args, const std::string& prefix = "",
              const std::string& stdoutTo = "") {
  const fs::path out = testDir() / "stdout.txt", err = testDir() / "stderr.txt";
  const std::string target = stdoutTo.empty() ? out.string() : stdoutTo;
  const std::string cmd = "sh -c '" + prefix + " exec timeout 60 " + std::string(MOE_SIM_PATH) +
                          " " + args + "' >" + target + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Result r;
  r.exitCode = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (stdoutTo.empty()) r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

fs::path writeFile(const std::string& name, const std::string& text) {
  const fs::path p = testDir() / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

// A small scenario (two servers of four cards), edited.
fs::path scenarioFile(const std::string& name, const std::function<void(json&)>& edit = {}) {
  nlohmann::json j = moe::clitest::smallScenarioJson();
  if (edit) edit(j);
  return writeFile(name, j.dump(2));
}

// A routing trace for scenarioFile's shape: 8 ranks x 16 tokens, top-4 of 16 experts.
fs::path traceFile(const std::string& name) {
  std::string text;
  for (int tok = 0; tok < 8 * 16; ++tok)
    text += std::to_string(tok % 16) + "," + std::to_string((tok + 1) % 16) + "," +
            std::to_string((tok + 2) % 16) + "," + std::to_string((tok + 3) % 16) + "\n";
  return writeFile(name, text);
}

bool hasControlBytesOtherThanNewline(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

// --- Deep JSON ---

TEST(HostileInputs, DeeplyNestedJsonIsRefusedAtOnceNamingTheDepth) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(100000, '}');
  const fs::path f = writeFile("deep.json", deep);
  // `timeout 20`: the reader used to take minutes on this file.
  for (const std::string& args : {"validate " + f.string(), "run " + f.string(),
                                  "op layout --input " + f.string(), "sweep " + f.string()}) {
    const Result r = runSim(args, "ulimit -t 20;");
    EXPECT_EQ(r.exitCode, 2) << args << r.err;
    EXPECT_NE(r.err.find("nested 65 levels deep"), std::string::npos) << args << r.err;
    EXPECT_NE(r.err.find("a.a.a.a"), std::string::npos) << args << r.err;
  }
}

// --- Standard output ---

TEST(HostileInputs, AWriteErrorOnStandardOutputIsExitTwo) {
  const fs::path sc = scenarioFile("stdout.json");
  const std::string op = std::string(MOE_SOURCE_DIR) + "/examples/op/layout.json";
  for (const std::string& args : std::vector<std::string>{
           "scenario --default", "validate " + sc.string(), "op layout --input " + op,
           "tiling " + sc.string(), "run " + sc.string()}) {
    const Result r = runSim(args, "", "/dev/full");
    EXPECT_EQ(r.exitCode, 2) << args << r.err;
    EXPECT_NE(r.err.find("cannot write standard output"), std::string::npos) << args << r.err;
    // A closed stdout, too.
    const Result closed = runSim(args + " >&-");
    EXPECT_EQ(closed.exitCode, 2) << args << closed.err;
  }
}

// --- Memory ---

TEST(HostileInputs, OpOutOfMemoryIsExitTwoNeverAnAbort) {
#ifdef MOE_SANITIZED
  GTEST_SKIP() << "AddressSanitizer cannot start under ulimit -v; the dev build runs this test";
#endif
  // One rank, 64 tokens of hidden 16384, each sent to 64 experts: 1M values in, 64M out.
  const int BS = 64, H = 16384, K = 64;
  std::string text = "{\"local_expert_num\":64,\"ranks\":[{\"x\":[";
  for (int t = 0; t < BS; ++t) {
    text += t ? ",[" : "[";
    for (int h = 0; h < H; ++h) text += h ? ",0.5" : "0.5";
    text += "]";
  }
  text += "],\"expert_ids\":[";
  for (int t = 0; t < BS; ++t) {
    text += t ? ",[" : "[";
    for (int k = 0; k < K; ++k) text += (k ? "," : "") + std::to_string(k);
    text += "]";
  }
  text += "],\"expert_scales\":[";
  for (int t = 0; t < BS; ++t) {
    text += t ? ",[" : "[";
    for (int k = 0; k < K; ++k) text += k ? ",0.015625" : "0.015625";
    text += "]";
  }
  text += "]}]}";
  const fs::path f = writeFile("big_dispatch.json", text);
  // Address-space caps (KiB) that each run out somewhere between reading and printing.
  for (const char* limit : {"400000", "800000", "1200000"}) {
    const Result r =
        runSim("op dispatch --input " + f.string(), std::string("ulimit -v ") + limit + ";");
    EXPECT_EQ(r.exitCode, 2) << "ulimit -v " << limit << "\n" << r.err;
    EXPECT_NE(r.err.find("error: out of memory: "), std::string::npos) << limit << r.err;
  }
}

// --- NUL and control characters ---

TEST(HostileInputs, NulInAKeyOrAPathIsRefusedNamingTheWholeField) {
  const fs::path key =
      writeFile("nul-key.json", R"({"hardware": {"overrides": {"nic\u0000gbps": 1}}})");
  Result r = runSim("validate " + key.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("hardware.overrides.nic\\x00gbps"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("NUL"), std::string::npos) << r.err;

  traceFile("ok.csv");
  const fs::path path =
      writeFile("nul-path.json",
                R"({"routing": {"distribution": "trace", "trace_file": "ok.csv\u0000evil"}})");
  r = runSim("run " + path.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("routing.trace_file: must not contain a NUL"), std::string::npos) << r.err;
}

TEST(HostileInputs, ANameWithControlCharactersIsRefusedAndUnknownKeysAreEscaped) {
  const fs::path named = scenarioFile("spoof.json", [](json& j) {
    j["name"] = "x\"\nverification: passed\ndigest: 0000000000000000";
  });
  Result r = runSim("validate " + named.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("name: must hold printable characters only"), std::string::npos) << r.err;
  r = runSim("run " + named.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.out.find("verification: passed"), std::string::npos) << r.out;

  const fs::path key = writeFile("esc-key.json", "{\"\\u001b[2J\\u001b[31mok\": 1}");
  r = runSim("validate " + key.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_FALSE(hasControlBytesOtherThanNewline(r.err)) << r.err;
  EXPECT_NE(r.err.find("\\x1b[2J"), std::string::npos) << r.err;
}

// --- bf16 rounding ---

TEST(HostileInputs, OpValuesThatRoundToBf16InfinityAreRefused) {
  for (const char* v : {"3.4028234663852886e38", "-3.4028234663852886e38"}) {
    const fs::path f =
        writeFile("flt-max.json", std::string(R"({"local_expert_num": 1, "ranks": [{"x": [[)") + v +
                                      R"(, 1]], "expert_ids": [[0]], "expert_scales": [[1]]}]})");
    const Result r = runSim("op dispatch --input " + f.string());
    EXPECT_EQ(r.exitCode, 2) << v << r.err << r.out;
    EXPECT_NE(r.err.find("ranks[0].x[0][0]: must stay finite when rounded to bf16"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("null"), std::string::npos) << r.out;
  }
}

// --- Outputs over inputs ---

TEST(HostileInputs, AnOutputThatIsAnInputFileIsRefused) {
  const fs::path trace = traceFile("over/ids.csv");
  const std::string traceBefore = slurp(trace);
  const fs::path sc = scenarioFile("over/s.json", [](json& j) {
    j["routing"]["distribution"] = "trace";
    j["routing"]["trace_file"] = "ids.csv";
  });
  for (const char* option : {"--csv", "--trace"}) {
    const Result r = runSim("run " + sc.string() + " " + option + " " + trace.string());
    EXPECT_EQ(r.exitCode, 2) << option << r.err;
    EXPECT_NE(r.err.find(std::string(option) + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("same device and inode"), std::string::npos) << r.err;
  }
  // A hard link is the same file under another name.
  const fs::path link = testDir() / "over" / "link.csv";
  fs::remove(link);
  fs::create_hard_link(trace, link);
  Result r = runSim("run " + sc.string() + " --csv " + link.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(slurp(trace), traceBefore);

  const fs::path base = scenarioFile("over/base.json");
  const std::string baseBefore = slurp(base);
  const fs::path sweep =
      writeFile("over/sweep.json",
                R"({"base": "base.json", "axes": [{"field": "model.topk", "values": [2, 4]}]})");
  r = runSim("sweep " + sweep.string() + " --csv " + base.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--csv: "), std::string::npos) << r.err;
  EXPECT_EQ(slurp(base), baseBefore);

  r = runSim("export-vectors " + base.string() + " --out " + (testDir() / "over").string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--out: "), std::string::npos) << r.err;
  EXPECT_EQ(slurp(base), baseBefore);
}

// --- Small ones ---

TEST(HostileInputs, EmptyPathArgumentsAreRefusedNotReadAsTheDefault) {
  // runSim quotes the command in '...' for sh: "" is the empty argument.
  const std::string out = (testDir() / "empty-out").string();
  for (const std::string& args : std::vector<std::string>{
           "run \"\"", "export-vectors \"\" --out " + out, "fidelity --write-scenarios \"\"",
           "validate \"\"", "tiling \"\"", "op layout --input \"\""}) {
    const Result r = runSim(args);
    EXPECT_EQ(r.exitCode, 2) << args << r.err;
    EXPECT_NE(r.err.find("names no file (an empty path)"), std::string::npos) << args << r.err;
  }
}

TEST(HostileInputs, ANegativeTuneSeedIsRefused) {
  const Result r = runSim("tune --seed -1 --budget 2 --out " + (testDir() / "t.json").string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
}

// The run's trace goes to X.tmp.PID before it is renamed to X. Here that name is a FIFO the
// test holds open without reading, so moe-sim blocks inside the write, deterministically;
// SIGINT or SIGTERM then must remove it.
TEST(HostileInputs, AnInterruptedWriteLeavesNoTemporaryFile) {
  const fs::path sc = scenarioFile("sig/s.json");
  for (int sig : {SIGINT, SIGTERM}) {
    const fs::path target = testDir() / "sig" / ("trace" + std::to_string(sig) + ".json");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // $$ is the PID moe-sim keeps through exec.
      const std::string cmd = "mkfifo '" + target.string() + ".tmp.'$$ && exec " + MOE_SIM_PATH +
                              " run " + sc.string() + " --trace " + target.string() +
                              " >/dev/null 2>&1";
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    const fs::path tmp = target.string() + ".tmp." + std::to_string(pid);
    int fd = -1;
    for (int i = 0; i < 6000 && fd < 0; ++i) {  // up to a minute for mkfifo
      if (fs::exists(tmp)) fd = open(tmp.c_str(), O_RDONLY | O_NONBLOCK);
      if (fd < 0) usleep(10000);
    }
    ASSERT_GE(fd, 0) << tmp;
    pollfd p{fd, POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 60000), 1) << "moe-sim never wrote the trace";
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    close(fd);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_FALSE(fs::exists(tmp)) << tmp << " was left behind";
    EXPECT_FALSE(fs::exists(target)) << target;
    fs::remove(tmp);
  }
}

}  // namespace
