// Issue 17, one regression test per item: inputs `validate` accepts either run correctly or
// stop with exit 2 naming the field; input files are bounded and never echoed; outputs are
// written atomically; flags that do not apply are refused.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include "small_scenario.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Result {
  int exitCode = -1;  // -1: killed by a signal
  std::string out, err;
};

fs::path testDir() {
  const fs::path d = fs::temp_directory_path() / ("moe_robustness_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `prefix moe-sim args` in sh (prefix: ulimit/trap settings), under `timeout 60`.
Result runSim(const std::string& args, const std::string& prefix = "") {
  const fs::path out = testDir() / "stdout.txt", err = testDir() / "stderr.txt";
  const std::string cmd = "sh -c '" + prefix + " exec timeout 60 " + std::string(MOE_SIM_PATH) +
                          " " + args + "' >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Result r;
  r.exitCode = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The small scenario of run_cli_test (two servers of four cards), edited.
fs::path scenarioFile(const std::string& name, const std::function<void(json&)>& edit = {}) {
  nlohmann::json j = moe::clitest::smallScenarioJson();
  if (edit) edit(j);
  const fs::path p = testDir() / name;
  std::ofstream(p) << j.dump(2);
  return p;
}

// The layer's total emulated time (first design's column of the "total" row), in us.
double totalMicroseconds(const std::string& out) {
  const auto at = out.find("\ntotal");
  if (at == std::string::npos) return -1;
  const auto bar = out.find('|', at);
  return std::stod(out.substr(bar + 1));
}

bool printableOnly(const std::string& s) {
  for (unsigned char c : s)
    if (c != '\n' && (c < 0x20 || c >= 0x7f)) return false;
  return true;
}

}  // namespace

// --- Time arithmetic and bandwidth minimums ---

TEST(Robustness, BandwidthsBelowTheMinimumAreRefusedNamingTheField) {
  for (const std::string field :
       {"hbm_gbps", "nic_gbps", "hccs_gbps_per_pair", "mte_gbps_per_core"})
    for (const double v : {1e-320, 1e-300, 1e-15, 0.0009}) {
      const auto f =
          scenarioFile("bw.json", [&](json& j) { j["hardware"]["overrides"][field] = v; });
      for (const std::string cmd : {"validate ", "run --verify "}) {
        const Result r = runSim(cmd + f.string());
        EXPECT_EQ(r.exitCode, 2) << field << "=" << v << " " << cmd << r.err;
        EXPECT_NE(r.err.find("hardware.overrides." + field + ": below the minimum of 0.001 GB/s"),
                  std::string::npos)
            << r.err;
      }
    }
}

TEST(Robustness, AStarvedLinkMakesTheLayerSlowerNeverFaster) {
  const Result base = runSim("run --verify " + scenarioFile("fast.json").string());
  ASSERT_EQ(base.exitCode, 0) << base.err;
  const double fast = totalMicroseconds(base.out);
  ASSERT_GT(fast, 0);
  for (const std::string field :
       {"hbm_gbps", "nic_gbps", "hccs_gbps_per_pair", "mte_gbps_per_core"}) {
    const auto f =
        scenarioFile("slow.json", [&](json& j) { j["hardware"]["overrides"][field] = 0.001; });
    const Result r = runSim("run --verify " + f.string());
    ASSERT_TRUE(r.exitCode == 0 || r.exitCode == 2) << field << ": exit " << r.exitCode << r.err;
    if (r.exitCode == 0) {
      EXPECT_NE(r.out.find("verification: passed"), std::string::npos) << r.out;
      EXPECT_GT(totalMicroseconds(r.out), fast) << field << " at 1 MB/s";
    } else {
      EXPECT_NE(r.err.find("hardware.overrides"), std::string::npos) << r.err;
    }
  }
}

// --- Limits a kernel or the machine can hit ---

TEST(Robustness, TinyOnChipAndHbmSizesAreRefusedWithTheFieldAndTheFigure) {
  const auto hbm =
      scenarioFile("hbm.json", [](json& j) { j["hardware"]["overrides"]["hbm_bytes"] = 1; });
  for (const std::string cmd : {"validate ", "run "}) {
    const Result r = runSim(cmd + hbm.string());
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("hardware.overrides.hbm_bytes: 1 B"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot hold"), std::string::npos) << r.err;
  }
  for (const std::string field : {"l1_bytes", "ub_bytes"}) {
    const auto f =
        scenarioFile("onchip.json", [&](json& j) { j["hardware"]["overrides"][field] = 1; });
    // Refused by validation already, not half-way through a run.
    const Result r = runSim("validate " + f.string());
    EXPECT_EQ(r.exitCode, 2) << field << r.err;
    EXPECT_NE(r.err.find(field), std::string::npos) << r.err;
  }
}

TEST(Robustness, CoarseDmaAlignmentRunsOrNamesTheField) {
  for (const int align : {64, 512, 4096}) {
    const auto f = scenarioFile(
        "align.json", [&](json& j) { j["hardware"]["overrides"]["dma_align_bytes"] = align; });
    const Result r = runSim("run --verify " + f.string());
    ASSERT_TRUE(r.exitCode == 0 || r.exitCode == 2) << align << ": exit " << r.exitCode << r.err;
    if (r.exitCode == 2)
      EXPECT_NE(r.err.find("hardware.overrides.dma_align_bytes"), std::string::npos) << r.err;
    else
      EXPECT_NE(r.out.find("verification: passed"), std::string::npos) << r.out;
  }
}

// --- Degenerate but valid workloads ---

TEST(Robustness, AllTokensPrunedOrInactiveRunsAndVerifiesWithEmptyTransfers) {
  const std::vector<std::pair<std::string, std::function<void(json&)>>> cases = {
      {"every threshold 1.0",
       [](json& j) {
         j["eplb"]["pruning_threshold"] = json::array({1.0, 1.0, 1.0, 1.0});
       }},
      {"active_tokens 0",
       [](json& j) {
         j["eplb"]["pruning_threshold"] = json::array({0.0, 0.0, 0.0, 0.0});
         j["eplb"]["active_tokens"] = 0;
       }},
  };
  for (const auto& [name, edit] : cases)
    for (const std::string payload : {"full", "none"}) {
      const auto f = scenarioFile("pruned.json", [&](json& j) {
        edit(j);
        j["payload"] = payload;
      });
      const Result r = runSim("run --verify " + f.string());
      EXPECT_EQ(r.exitCode, 0) << name << " payload " << payload << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("verification: passed"), std::string::npos) << name << r.out;
    }
}

// --- Memory ---

TEST(Robustness, MemoryTheProcessCannotHaveIsRefusedUpFrontOrReportedAsOutOfMemory) {
#ifdef MOE_SANITIZED
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow memory, so moe-sim cannot start "
                  "under ulimit -v; the dev build runs this test";
#endif
  // 16 servers x 8 cards of hidden 7168, payload full: about 1 GiB of token data.
  const auto f = scenarioFile("big.json", [](json& j) {
    j["cluster"]["servers"] = 16;
    j["cluster"]["cards_per_server"] = 8;
    j["hardware"]["overrides"]["cards_per_server"] = 8;
    j["model"] = {{"tokens_per_rank", 128},
                  {"hidden", 7168},
                  {"experts", 128},
                  {"topk", 8},
                  {"intermediate", 2048}};
    j["rings"]["chunk_bytes"] = 65536;
  });
  // 600 MB of address space: not enough for this run.
  const Result r = runSim("run " + f.string(), "ulimit -v 600000;");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  const bool upFront = r.err.find("of host memory") != std::string::npos;
  const bool caught = r.err.find("error: out of memory: ") != std::string::npos;
  EXPECT_TRUE(upFront || caught) << r.err;
}

// --- Input files ---

TEST(Robustness, TraceFilesMustBeRegularFilesUnderTheCap) {
  const fs::path fifo = testDir() / "trace.fifo";
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& trace : {fifo.string(), std::string("/dev/zero"), testDir().string()}) {
    const auto f = scenarioFile("trace.json", [&](json& j) {
      j["routing"]["distribution"] = "trace";
      j["routing"]["trace_file"] = trace;
    });
    const Result r = runSim("run " + f.string());
    EXPECT_EQ(r.exitCode, 2) << trace << r.err;
    EXPECT_NE(r.err.find("routing.trace_file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  }
  fs::remove(fifo);
  // A sparse file just over 64 MiB: refused by size, without reading it.
  const fs::path big = testDir() / "big.csv";
  { std::ofstream(big) << ""; }
  fs::resize_file(big, (std::uintmax_t{64} << 20) + 1);
  const auto f = scenarioFile("trace-big.json", [&](json& j) {
    j["routing"]["distribution"] = "trace";
    j["routing"]["trace_file"] = big.string();
  });
  const Result r = runSim("run " + f.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("above the cap of 64 MiB"), std::string::npos) << r.err;
  fs::remove(big);
}

TEST(Robustness, ScenarioFilesMustBeRegularFiles) {
  for (const std::string path : {"/proc/self/mem", "/dev/zero", "/dev/null"}) {
    const Result r = runSim("validate " + path);
    EXPECT_EQ(r.exitCode, 2) << path << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  }
}

TEST(Robustness, ARelativeTracePathIsResolvedAgainstTheScenarioFile) {
  const fs::path sub = testDir() / "with-trace";
  fs::create_directories(sub);
  {
    std::ofstream t(sub / "ids.csv");
    for (int tok = 0; tok < 8 * 16; ++tok)
      t << tok % 16 << "," << (tok + 1) % 16 << "," << (tok + 2) % 16 << "," << (tok + 3) % 16
        << "\n";
  }
  const auto f = scenarioFile("with-trace/s.json", [](json& j) {
    j["routing"]["distribution"] = "trace";
    j["routing"]["trace_file"] = "ids.csv";
  });
  // Run from another directory: the trace is found next to the scenario.
  const Result r = runSim("run --verify " + f.string(), "cd / &&");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("verification: passed"), std::string::npos) << r.out;
}

TEST(Robustness, ErrorsNameFileAndLineButNeverEchoFileContent) {
  // A non-JSON scenario (think of a password file): the error names the file and position.
  const fs::path secret = testDir() / "secret.txt";
  std::ofstream(secret) << "root:SECRETPASSWORD:0:0\n";
  Result r = runSim("validate " + secret.string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find(secret.string() + ": line 1, column 1"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("SECRET"), std::string::npos) << r.err;
  // The same file as a trace: at most a short printable excerpt of the offending line.
  const auto f = scenarioFile("secret-trace.json", [&](json& j) {
    j["routing"]["distribution"] = "trace";
    j["routing"]["trace_file"] = secret.string();
  });
  r = runSim("run " + f.string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("routing.trace_file: " + secret.string() + " line 1, column 1"),
            std::string::npos)
      << r.err;
  // Binary garbage is never echoed raw.
  const fs::path bin = testDir() / "binary.csv";
  std::ofstream(bin, std::ios::binary) << std::string("\x01\x02\xff\xfe,\x80\x81\n", 8);
  const auto g = scenarioFile("bin-trace.json", [&](json& j) {
    j["routing"]["distribution"] = "trace";
    j["routing"]["trace_file"] = bin.string();
  });
  r = runSim("run " + g.string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(printableOnly(r.err)) << r.err;
  std::ofstream(bin, std::ios::binary) << std::string(
      "\x7f"
      "ELF\x02\x01\x01",
      7);
  r = runSim("validate " + bin.string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(printableOnly(r.err)) << r.err;
}

TEST(Robustness, NumberOverflowIsExit2InEveryCommand) {
  const fs::path f = testDir() / "overflow.json";
  std::ofstream(f) << "{\"seed\": 1e999999999999}";
  for (const std::string cmd : {"validate ", "run ", "tiling ", "op dispatch --input "}) {
    const Result r = runSim(cmd + f.string());
    EXPECT_EQ(r.exitCode, 2) << cmd << r.err;
    EXPECT_NE(r.err.find("error:"), std::string::npos) << cmd << r.err;
  }
}

// --- Outputs ---

TEST(Robustness, UnwritableEmptyOrCollidingOutputPathsAreRefusedBeforeTheRun) {
  const std::string sc = scenarioFile("out.json").string();
  const fs::path same = testDir() / "same.out";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--trace /dev/full", "--trace"},
      {"--csv /dev/full", "--csv"},
      {"--trace \"\"", "--trace"},
      {"--csv \"\"", "--csv"},
      {"--trace " + testDir().string(), "--trace"},
      {"--trace /nonexistent-dir/t.json", "--trace"},
      {"--csv " + same.string() + " --trace " + same.string(), "--csv"},
      {"--csv " + sc, "--csv"},
  };
  for (const auto& [args, option] : cases) {
    const Result r = runSim("run " + sc + " " + args);
    EXPECT_EQ(r.exitCode, 2) << args << r.err;
    EXPECT_NE(r.err.find("error: " + option + ":"), std::string::npos) << args << r.err;
    EXPECT_EQ(r.out.find("digest"), std::string::npos) << "ran before refusing " << args;
  }
  EXPECT_FALSE(fs::exists(same));
}

TEST(Robustness, AFailedWriteExitsNonZeroAndLeavesTheOldFileIntact) {
  const std::string sc = scenarioFile("full-disk.json").string();
  for (const std::string option : {"--trace", "--csv"}) {
    const fs::path target = testDir() / ("old" + option.substr(2));
    std::ofstream(target) << "old content\n";
    // A file-size limit of one block (512 B in dash, 1 KiB in bash) stands in for a full
    // disk: with SIGXFSZ ignored, writes past it fail. Both outputs are larger than that.
    const Result r =
        runSim("run " + sc + " " + option + " " + target.string(), "trap \"\" XFSZ; ulimit -f 1;");
    EXPECT_EQ(r.exitCode, 2) << option << r.err;
    EXPECT_NE(r.err.find("error: " + option + ": cannot write"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(target), "old content\n") << "the old file must survive a failed write";
    for (const auto& e : fs::directory_iterator(testDir()))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos)
          << "temporary left behind: " << e.path();
  }
}

TEST(Robustness, OutputsAreWrittenCompleteOnSuccess) {
  const std::string sc = scenarioFile("ok-out.json").string();
  const fs::path trace = testDir() / "t.json", csv = testDir() / "t.csv";
  std::ofstream(trace) << "stale";
  const Result r = runSim("run " + sc + " --trace " + trace.string() + " --csv " + csv.string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  json parsed;
  EXPECT_NO_THROW(parsed = json::parse(slurp(trace)));
  EXPECT_TRUE(parsed.is_object() || parsed.is_array());
  EXPECT_NE(slurp(csv).find("stage"), std::string::npos);
}

// --- Flags that do not apply ---

TEST(Robustness, FaultWithThePhasedDesignOrTheFusedWorkloadIsRefused) {
  const std::string sc = scenarioFile("fault-flags.json").string();
  Result r = runSim("run " + sc + " --impl phased --fault drop-tail");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("error: --fault: needs the streaming design"), std::string::npos) << r.err;
  r = runSim("run " + sc + " --workload alltoall-matmul-rs --fault stall-core");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("error: --fault: applies to the moe-layer workload only"), std::string::npos)
      << r.err;
}

// --- Long runs: the deadlock watch fires when the stuck core can no longer be woken ---

TEST(Robustness, ALostTailPublishIsDiagnosedWhenItsProducerFinishesNotAtTheEnd) {
  const std::string sc = scenarioFile("early-watch.json").string();
  const Result clean = runSim("run " + sc + " --impl streaming");
  ASSERT_EQ(clean.exitCode, 0) << clean.err;
  const Result r = runSim("run " + sc + " --impl streaming --fault drop-tail");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  // Only the proven-stuck forwarder is listed, and why.
  EXPECT_NE(r.out.find("the only core that writes what it waits on has finished"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(forwarder, wait-data"), std::string::npos) << r.out;
}

// --- Documented ranges match the validator ---

TEST(Robustness, QueueChunksBelowTwoIsRefusedAsScenarioMdSays) {
  const auto f = scenarioFile("queue1.json", [](json& j) { j["rings"]["queue_chunks"] = 1; });
  const Result r = runSim("validate " + f.string());
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("rings.queue_chunks"), std::string::npos) << r.err;
  const std::string doc = slurp(std::string(MOE_SOURCE_DIR) + "/docs/SCENARIO.md");
  EXPECT_NE(doc.find("| `queue_chunks` | integer | 8 | 2 … 4096 |"), std::string::npos);
}

TEST(Robustness, HugeRingsAreRefusedWithTheMemoryFigureNotABadAlloc) {
#ifdef MOE_SANITIZED
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow memory, so moe-sim cannot start "
                  "under ulimit -v; the dev build runs this test";
#endif
  // 4096 chunks of 64 KiB: 256 MiB per ring, hundreds of rings.
  const auto f = scenarioFile("queue4096.json", [](json& j) {
    j["cluster"]["servers"] = 2;
    j["cluster"]["cards_per_server"] = 8;
    j["hardware"]["overrides"]["cards_per_server"] = 8;
    j["model"]["experts"] = 64;
    j["rings"]["chunk_bytes"] = 65536;
    j["rings"]["queue_chunks"] = 4096;
  });
  const Result r = runSim("run " + f.string(), "ulimit -v 8388608;");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("of host memory"), std::string::npos) << r.err;
}
