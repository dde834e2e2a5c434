// `moe-sim run` as a user runs it: exit codes, the summary, the digest, trace and CSV files.

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "small_scenario.h"
#include "tests/cli/sim_process.h"

namespace fs = std::filesystem;

namespace {

using Result = moe::clitest::SimResult;

// One directory per test process: ctest runs these tests in parallel, and a shared stderr
// file let one test read another's messages.
const fs::path& testDir() {
  static const fs::path dir =
      fs::temp_directory_path() / ("moe_run_cli_test_" + std::to_string(getpid()));
  return dir;
}

Result runSim(const std::string& args) {
  return moe::clitest::runMoeSim(args, testDir());
}

std::string digestLine(const std::string& out) {
  const auto at = out.find("digest: ");
  return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
}

// The small scenario (small_scenario.h), edited, so file-output tests stay fast.
fs::path smallScenarioFile(const std::string& name,
                           const std::function<void(nlohmann::json&)>& edit = {}) {
  nlohmann::json j = moe::clitest::smallScenarioJson();
  if (edit) edit(j);
  const fs::path p = testDir() / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << j.dump(2);
  return p;
}

}  // namespace

TEST(MoeSimRun, DefaultScenarioVerifiesAndPrintsTheSameDigestTwice) {
  const Result a = runSim("run --verify");
  ASSERT_EQ(a.exitCode, 0) << a.out << a.err;
  EXPECT_NE(a.out.find("verification: passed"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("phased == streaming"), std::string::npos);
  EXPECT_NE(a.out.find("dispatch"), std::string::npos);
  const Result b = runSim("run --verify");
  ASSERT_FALSE(digestLine(a.out).empty());
  EXPECT_EQ(digestLine(a.out), digestLine(b.out));
}

TEST(MoeSimRun, TraceIsChromeTraceEventJsonWithActivitiesCountersAndNames) {
  const fs::path trace = testDir() / "trace.json";
  const Result r = runSim("run " + smallScenarioFile("small.json").string() +
                          " --impl streaming --trace " + trace.string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(trace);
  const nlohmann::json j = nlohmann::json::parse(in);
  int x = 0, c = 0, m = 0;
  bool stageTrackNamed = false;
  for (const auto& e : j.at("traceEvents")) {
    const std::string ph = e.at("ph");
    x += ph == "X";
    c += ph == "C";
    m += ph == "M";
    // The stage track (tid -1) is named like the core tracks.
    if (ph == "M" && e.at("name") == "thread_name" && e.at("tid") == -1)
      stageTrackNamed = e.at("args").at("name").get<std::string>().ends_with("pipeline stages");
    if (ph == "X") {
      EXPECT_GE(e.at("dur").get<double>(), 0.0);
    }
  }
  EXPECT_GT(x, 100);
  EXPECT_GT(c, 10);  // ring occupancy counters
  EXPECT_GT(m, 8);   // process and thread names
  EXPECT_TRUE(stageTrackNamed);
}

TEST(MoeSimRun, CsvHasOneRowPerStagePerDesign) {
  const fs::path csv = testDir() / "metrics.csv";
  const Result r = runSim("run " + smallScenarioFile("small.json").string() +
                          " --impl both --csv " + csv.string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "impl,stage,start_us,end_us,duration_us,hccs_bytes,nic_bytes,achieved_gbps");
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 12);  // 6 stages x 2 designs
}

TEST(MoeSimRun, UnknownImplIsBadInput) {
  const Result r = runSim("run --impl fastest");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--impl"), std::string::npos) << r.err;
}

TEST(MoeSimRun, UnwritableTraceIsBadInputBeforeRunning) {
  const Result r = runSim("run --trace /nonexistent-dir/trace.json");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--trace"), std::string::npos) << r.err;
}

TEST(MoeSimRun, ImpossibleTilingIsBadInputNamingTheField) {
  const auto file = smallScenarioFile("tiny-chunk.json",
                                      [](nlohmann::json& j) { j["rings"]["chunk_bytes"] = 64; });
  const Result r = runSim("run " + file.string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("rings.chunk_bytes"), std::string::npos) << r.err;
  const Result v = runSim("validate " + file.string());
  EXPECT_EQ(v.exitCode, 2) << "validate must refuse what run refuses";
}

TEST(MoeSimRun, InvalidEplbTableIsBadInputNamingTheField) {
  const auto file = smallScenarioFile("bad-table.json", [](nlohmann::json& j) {
    nlohmann::json table = nlohmann::json::array();
    for (int e = 0; e < 16; ++e) table.push_back({1, 0});  // every expert on instance 0
    j["eplb"]["table"] = table;
  });
  const Result r = runSim("run " + file.string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("eplb"), std::string::npos) << r.err;
}

TEST(MoeSimRunA2aMatmul, VerifyExitsZeroWithBothTimesOverlapAndDigest) {
  const auto file = smallScenarioFile("a2amm-small.json", [](nlohmann::json& j) {
    j["workload"] = {{"ranks", 4},   {"m", 128},     {"n", 96},      {"k", 512},
                     {"tile_m", 16}, {"tile_n", 32}, {"tile_k", 32}, {"stages", 4}};
  });
  const Result r = runSim("run " + file.string() + " --workload alltoall-matmul-rs --verify");
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  for (const char* line :
       {"pipelined   emulated", "sequential  emulated",
        "ratio pipelined/sequential:", "overlap ratio:", "workspace per rank: allocated",
        "peak in use (measured)", "[ok]   pipelined == reference GEMM",
        "[ok]   sequential == reference GEMM", "legend: overlap ratio ="})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  EXPECT_EQ(r.out.find("[FAIL]"), std::string::npos) << r.out;
  EXPECT_FALSE(digestLine(r.out).empty());
  EXPECT_EQ(digestLine(runSim("run " + file.string() + " --workload alltoall-matmul-rs").out),
            digestLine(r.out));
}

TEST(MoeSimRunA2aMatmul, TraceHasBothKernelsWithTheirRolesAndWorkspaceCounters) {
  const auto file = smallScenarioFile("a2amm-trace.json", [](nlohmann::json& j) {
    j["workload"] = {{"ranks", 4},   {"m", 128},     {"n", 96},      {"k", 512},
                     {"tile_m", 16}, {"tile_n", 32}, {"tile_k", 32}, {"stages", 2}};
  });
  const fs::path trace = testDir() / "a2amm-trace-out.json";
  fs::remove(trace);
  const Result r =
      runSim("run " + file.string() + " --workload alltoall-matmul-rs --trace " + trace.string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  // The trace does not change what the run prints.
  EXPECT_EQ(digestLine(runSim("run " + file.string() + " --workload alltoall-matmul-rs").out),
            digestLine(r.out));
  std::ifstream in(trace);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::set<std::string> roles, processes, counters, stages;
  for (const auto& e : j.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "X" && e.at("cat") == "stage")
      stages.insert(e.at("name").get<std::string>());
    else if (ph == "X")
      roles.insert(e.at("cat").get<std::string>());
    if (ph == "C") counters.insert(e.at("name").get<std::string>());
    if (ph == "M" && e.at("name") == "process_name")
      processes.insert(e.at("args").at("name").get<std::string>());
  }
  EXPECT_EQ(roles, (std::set<std::string>{"a2a", "gemm", "reduce-scatter"}));
  EXPECT_EQ(stages,
            (std::set<std::string>{"a2a-matmul-rs", "all-to-all", "matmul", "reduce-scatter"}));
  EXPECT_TRUE(processes.count("pipelined card0") && processes.count("sequential card3"))
      << processes.size();
  EXPECT_TRUE(counters.count("workspace a2a input slots in use"));
  EXPECT_TRUE(counters.count("workspace partial sums slots in use"));
}

TEST(MoeSimRunA2aMatmul, UnwritableTraceIsBadInputBeforeRunning) {
  const Result r = runSim("run --workload alltoall-matmul-rs --trace /nonexistent-dir/trace.json");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--trace"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("pipelined"), std::string::npos) << "nothing ran";
}

TEST(MoeSimRunA2aMatmul, BadShapeIsBadInputNamingTheField) {
  const auto file = smallScenarioFile("a2amm-bad.json", [](nlohmann::json& j) {
    j["workload"] = {{"kind", "alltoall-matmul-rs"}, {"ranks", 4}, {"m", 130}};
  });
  const Result r = runSim("run " + file.string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("workload.m"), std::string::npos) << r.err;
  EXPECT_EQ(runSim("validate " + file.string()).exitCode, 2)
      << "validate must refuse what run refuses";
}

TEST(MoeSimRun, DroppedTailPublishIsDiagnosedWithTheRingAndPointerValues) {
  const Result r = runSim("run " + smallScenarioFile("fault.json").string() +
                          " --impl streaming --fault drop-tail");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.out.find("deadlock in streaming run during stage 'combine-streaming'"),
            std::string::npos)
      << r.out;
  // The forwarder waits on the ring whose last publish was lost: the producer has written
  // further than the published tail.
  EXPECT_NE(r.out.find("(forwarder, wait-data"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("combine IPC <- card"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("producer tail"), std::string::npos);
  EXPECT_NE(r.out.find("cached head"), std::string::npos);
}

// A planted fault asks for a diagnosis: the run moves no payload bytes, says so, and reports
// the same deadlock as the same scenario in payload "none".
TEST(MoeSimRun, AFaultRunMovesNoPayloadAndSaysSo) {
  const auto full =
      smallScenarioFile("fault-full.json", [](nlohmann::json& j) { j["payload"] = "full"; });
  const auto none =
      smallScenarioFile("fault-none.json", [](nlohmann::json& j) { j["payload"] = "none"; });
  const Result a = runSim("run " + full.string() + " --impl streaming --fault drop-tail");
  const Result b = runSim("run " + none.string() + " --impl streaming --fault drop-tail");
  EXPECT_EQ(a.exitCode, 1) << a.err;
  EXPECT_NE(a.err.find("note: --fault runs with payload \"none\""), std::string::npos) << a.err;
  EXPECT_EQ(b.err.find("note: --fault"), std::string::npos) << "already payload none: no note";
  const auto diagnosis = [](const std::string& out) {
    const auto at = out.find("deadlock in ");
    return at == std::string::npos ? std::string() : out.substr(at);
  };
  EXPECT_NE(diagnosis(a.out), "") << a.out;
  EXPECT_EQ(diagnosis(a.out), diagnosis(b.out));
}

TEST(MoeSimRun, StalledForwarderIsDiagnosedAndItsSendersWaitForSpace) {
  const auto file = smallScenarioFile("stall.json", [](nlohmann::json& j) {
    j["rings"]["chunk_bytes"] = 2048;  // small rings, so the stalled forwarder's senders block
    j["rings"]["queue_chunks"] = 2;
    // Enough tokens that the stalled lane's rows overflow a ring: with forwarder channels a
    // lane carries only its share of the tokens.
    j["model"]["tokens_per_rank"] = 64;
  });
  const Result r = runSim("run " + file.string() + " --impl streaming --fault stall-core");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.out.find("stalled by fault injection"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(sender, wait-space"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("B of space in IPC ring"), std::string::npos) << r.out;
}

TEST(MoeSimRun, UnknownFaultIsBadInput) {
  const Result r = runSim("run --fault unplug-cable");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--fault"), std::string::npos) << r.err;
}

TEST(MoeSimTiling, ProposesAValidTilingAsRingsJson) {
  const Result r = runSim("tiling");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // The scenario's rings object: a tiling per stage (flat when the two are equal).
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* stage : {"dispatch", "combine"}) {
    const nlohmann::json& t = j.contains(stage) ? j.at(stage) : j;
    EXPECT_GE(t.at("chunk_bytes").get<int>(), 16 * 1024) << stage;
    EXPECT_GE(t.at("queue_chunks").get<int>(), 2) << stage;
  }
  const Result bad = runSim("tiling /nonexistent.json");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("/nonexistent.json"), std::string::npos) << bad.err;
}

// --out writes the whole scenario with the proposal: the rings printed on stdout and the
// RDMA batch the explanation proposes; the file runs as it is. Bad paths are refused first.
TEST(MoeSimTiling, OutWritesTheScenarioWithTheProposedRingsAndBatch) {
  const fs::path out = testDir() / "proposed.json";
  const Result r = runSim("tiling --out " + out.string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json proposed = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(proposed.at("rings"), nlohmann::json::parse(r.out));
  // The default scenario's 256 KiB batch leaves a tail on the NIC at 128 tokens.
  EXPECT_NE(r.err.find("combine.rdma_batch_bytes: 32 KiB proposed (the scenario has 256 KiB)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(proposed.at("combine").at("rdma_batch_bytes").get<int>(), 32 * 1024);
  const Result ran = runSim("validate " + out.string());
  EXPECT_EQ(ran.exitCode, 0) << ran.err;
  const Result full = runSim("tiling --out /dev/full");
  EXPECT_EQ(full.exitCode, 2);
  EXPECT_NE(full.err.find("--out"), std::string::npos) << full.err;
  const Result over = runSim("tiling " + out.string() + " --out " + out.string());
  EXPECT_EQ(over.exitCode, 2);
  EXPECT_NE(over.err.find("--out"), std::string::npos) << over.err;
}

// Issue 6: a hotspot scenario with redundant experts prints the per-rank load before and
// after UpdateExpert, and the layer still verifies.
TEST(MoeSimRun, RedundantExpertsLowerPerRankImbalanceAndStillVerify) {
  const auto file = smallScenarioFile("hotspot-redundant.json", [](nlohmann::json& j) {
    j["routing"] = {{"distribution", "hotspot"}, {"hotspot_fraction", 0.5}, {"hotspot_experts", 2}};
    j["eplb"] = {{"redundant_experts", 8}, {"table_from", "warm-up"}, {"balance_mode", 1}};
  });
  const Result r = runSim("run --verify " + file.string());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("eplb table: generated by EPLB from a warm-up batch"), std::string::npos)
      << r.out;
  const auto at = r.out.find("per-rank token load max/mean: before mapping ");
  ASSERT_NE(at, std::string::npos) << r.out;
  double before = 0, after = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + at,
                        "per-rank token load max/mean: before mapping %lf, after UpdateExpert %lf",
                        &before, &after),
            2);
  EXPECT_LT(after, before);
}

TEST(MoeSimRun, RedundantExpertsWithoutATableSourceIsBadInput) {
  const auto file = smallScenarioFile("redundant-no-source.json", [](nlohmann::json& j) {
    j["eplb"] = {{"redundant_experts", 8}};
  });
  const Result r = runSim("run " + file.string());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("eplb.table_from"), std::string::npos) << r.err;
}

TEST(MoeSimRun, DesignsAtOnceAndOneAfterTheOtherPrintTheSameReport) {
  const fs::path sc = smallScenarioFile("designs_at_once.json");
  // Everything but the memory line (peak RSS, and the tensors held together, differ).
  auto withoutMemory = [](const std::string& out) {
    std::istringstream in(out);
    std::string kept;
    for (std::string line; std::getline(in, line);)
      if (line.rfind("memory: ", 0) != 0) kept += line + "\n";
    return kept;
  };
  for (const char* impl : {"both", "all"}) {
    const std::string base = "run " + sc.string() + " --verify --impl " + impl;
    const Result seq = runSim(base + " -j 1 --csv " + (testDir() / "seq.csv").string());
    const Result par = runSim(base + " -j 3 --csv " + (testDir() / "par.csv").string());
    ASSERT_EQ(seq.exitCode, 0) << seq.out << seq.err;
    ASSERT_EQ(par.exitCode, 0) << par.out << par.err;
    EXPECT_NE(par.out.find("designs at once"), std::string::npos) << par.out;
    EXPECT_EQ(seq.out.find("designs at once"), std::string::npos) << seq.out;
    EXPECT_EQ(withoutMemory(seq.out), withoutMemory(par.out));
    std::ifstream a(testDir() / "seq.csv"), b(testDir() / "par.csv");
    std::stringstream sa, sb;
    sa << a.rdbuf();
    sb << b.rdbuf();
    EXPECT_FALSE(sa.str().empty());
    EXPECT_EQ(sa.str(), sb.str());
  }
}

TEST(MoeSimRun, JobsMustBeAPositiveCount) {
  const Result r = runSim("run -j 0");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--jobs"), std::string::npos) << r.err;
}
