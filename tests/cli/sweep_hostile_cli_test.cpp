// Hostile sweeps: --resume keeps only rows that are exactly this sweep's (any damage makes
// that point run again, another sweep's file is refused), so the resumed file is the fresh
// run's bytes.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
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
  const fs::path d = fs::temp_directory_path() / ("moe_sweep_hostile_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

struct RemoveAtExit {
  ~RemoveAtExit() {
    std::error_code ec;
    fs::remove_all(testDir(), ec);
  }
} removeAtExit;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Runs `prefix moe-sim args` in sh under `timeout 120` (prefix: "cd DIR &&", "VAR=1").
Result runSim(const std::string& args, const std::string& prefix = "") {
  const fs::path out = testDir() / "stdout.txt", err = testDir() / "stderr.txt";
  const std::string cmd = "sh -c '" + prefix + " exec timeout 120 " + std::string(MOE_SIM_PATH) +
                          " " + args + "' >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Result r;
  r.exitCode = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// A small scenario (two servers of four cards), edited.
json smallScenario() {
  return moe::clitest::smallScenarioJson();
}

// 2 x 2 points, phased and streaming; sender_cores 64 makes points 1 and 3 invalid, so
// quoted messages (with commas) are among the rows.
fs::path resumeSweep() {
  const fs::path p = testDir() / "resume" / "sweep.json";
  if (!fs::exists(p)) {
    json s;
    s["base"] = smallScenario();
    s["axes"] = {{{"field", "rings.queue_chunks"}, {"values", {2, 4}}},
                 {{"field", "rings.sender_cores"}, {"values", {4, 64}}}};
    s["designs"] = {"phased", "streaming"};
    spit(p, s.dump(2));
  }
  return p;
}

// The fresh run's output, CSV or JSON lines (once per process).
const std::string& fresh(bool csv) {
  static const std::pair<std::string, std::string> files = [] {
    const fs::path dir = testDir() / "resume";
    const Result r =
        runSim("sweep " + resumeSweep().string() + " -j 1 --csv " + (dir / "fresh.csv").string() +
               " --jsonl " + (dir / "fresh.jsonl").string());
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return std::pair{slurp(dir / "fresh.csv"), slurp(dir / "fresh.jsonl")};
  }();
  return csv ? files.first : files.second;
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(text.substr(start, nl - start));
  return out;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string t;
  for (const std::string& l : lines) t += l + "\n";
  return t;
}

// Writes `damaged` as the output, resumes the sweep into it and returns what moe-sim said.
Result resumeFrom(bool csv, const std::string& damaged, const std::string& name) {
  const fs::path out = testDir() / "resume" / (name + (csv ? ".csv" : ".jsonl"));
  spit(out, damaged);
  Result r = runSim("sweep " + resumeSweep().string() + " -j 1 --resume " +
                    (csv ? "--csv " : "--jsonl ") + out.string());
  r.out = slurp(out);  // the file, for the caller to compare
  return r;
}

// Damages row `row` (0-based, header not counted) of the fresh output of each format with
// `edit`, resumes, and expects the fresh bytes back, one point run again and a note naming
// the line and `rule`.
void expectRedone(const std::string& name, std::size_t row,
                  const std::function<std::string(const std::string&, bool csv)>& edit,
                  const std::string& csvRule, const std::string& jsonRule) {
  for (bool csv : {true, false}) {
    std::vector<std::string> lines = linesOf(fresh(csv));
    ASSERT_EQ(lines.size(), 8u + (csv ? 1 : 0));
    const std::size_t index = row + (csv ? 1 : 0);
    lines[index] = edit(lines[index], csv);
    const Result r = resumeFrom(csv, joinLines(lines), name);
    const std::string format = csv ? "--csv" : "--jsonl";
    EXPECT_EQ(r.exitCode, 0) << format << r.err;
    EXPECT_EQ(r.out, fresh(csv)) << format << " after --resume differs from a fresh run";
    const std::string note = format + ": line " + std::to_string(index + 1) + ": ";
    EXPECT_NE(r.err.find(note), std::string::npos) << note << " in " << r.err;
    const std::string& rule = csv ? csvRule : jsonRule;
    EXPECT_NE(r.err.find(rule), std::string::npos) << format << " " << rule << " in " << r.err;
    EXPECT_NE(r.err.find("point " + std::to_string(row / 2) + " is run again"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("sweep: 1 point(s) run, 3 already in the output"), std::string::npos)
        << r.err;
  }
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from << " in " << s;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

// --- --resume ---

TEST(SweepHostile, ResumeRedoesAPointWhoseRowMissesAColumn) {
  expectRedone(
      "missing", 2,
      [](const std::string& l, bool csv) {
        return csv ? l.substr(0, l.rfind(',')) : replaced(l, "\"events\":", "\"eventz\":");
      },
      "fields, the header", "has \"eventz\" where this sweep writes \"events\"");
  expectRedone(
      "missing2", 2,
      [](const std::string& l, bool csv) {
        if (csv) return l.substr(0, l.rfind(','));
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(l);
        j.erase("rdma_posts");
        return j.dump();
      },
      "fields, the header", "has \"events\" where this sweep writes \"rdma_posts\"");
}

TEST(SweepHostile, ResumeRedoesAPointWhoseRowHasAnExtraColumn) {
  expectRedone(
      "extra", 5,
      [](const std::string& l, bool csv) {
        return csv ? l + ",x" : l.substr(0, l.size() - 1) + ",\"extra\":1}";
      },
      "fields, the header", "has a key this sweep does not write: \"extra\"");
}

TEST(SweepHostile, ResumeRedoesAPointWithAForgedDeadlockStatus) {
  expectRedone(
      "deadlock", 4,
      [](const std::string& l, bool csv) {
        return csv ? replaced(l, ",ok,", ",deadlock,") : replaced(l, "\"ok\"", "\"deadlock\"");
      },
      "its check does not match its fields", "its check does not match its fields");
}

TEST(SweepHostile, ResumeRedoesAPointWithAGarbageOrChangedDigest) {
  expectRedone(
      "digest", 0,
      [](const std::string& l, bool csv) {
        const std::size_t at =
            csv ? l.rfind(',', l.rfind(',') - 1) + 1 : l.find("\"digest\":\"") + 10;
        std::string s = l;
        s.replace(at, 16, "zz34567890abcdef");
        return s;
      },
      "digest: must be 16 lower-case hex digits", "digest: must be 16 lower-case hex digits");
  expectRedone(
      "digest2", 0,
      [](const std::string& l, bool csv) {
        const std::size_t at =
            csv ? l.rfind(',', l.rfind(',') - 1) + 1 : l.find("\"digest\":\"") + 10;
        std::string s = l;
        s.replace(at, 16, "0123456789abcdef");
        return s;
      },
      "its check does not match its fields", "its check does not match its fields");
}

TEST(SweepHostile, ResumeRedoesAPointWithANulByte) {
  expectRedone(
      "nul", 3,
      [](const std::string& l, bool) {
        std::string s = l;
        s.insert(s.find("sender_cores") + 3, 1, '\0');
        return s;
      },
      "holds a NUL byte", "holds a NUL byte");
}

TEST(SweepHostile, ResumeRedoesAJsonlRowWithAnIntegerWrittenAsADecimal) {
  std::vector<std::string> lines = linesOf(fresh(false));
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"rdma_posts\":", "\"rdma_posts\":1.0,\"x\":"},
           {"\"rings.queue_chunks\":2,", "\"rings.queue_chunks\":2.0,"},
           {"\"point\":0,", "\"point\":0.0,"}}) {
    std::vector<std::string> damaged = lines;
    // rdma_posts 1.0 in place of the real count: rebuild the line with the same value as a
    // decimal, so only the type differs.
    if (from == "\"rdma_posts\":") {
      json j = json::parse(damaged[0]);
      const auto posts = j["rdma_posts"].get<std::uint64_t>();
      damaged[0] = replaced(damaged[0], "\"rdma_posts\":" + std::to_string(posts) + ",",
                            "\"rdma_posts\":" + std::to_string(posts) + ".0,");
    } else {
      damaged[0] = replaced(damaged[0], from, to);
    }
    const Result r = resumeFrom(false, joinLines(damaged), "decimal");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, fresh(false)) << from;
    EXPECT_NE(r.err.find("--jsonl: line 1: "), std::string::npos) << from << r.err;
    EXPECT_NE(r.err.find("point 0 is run again"), std::string::npos) << from << r.err;
  }
}

TEST(SweepHostile, ResumeRedoesAPointWhoseDesignIsListedTwiceOrSwapped) {
  for (bool csv : {true, false}) {
    const std::vector<std::string> lines = linesOf(fresh(csv));
    const std::size_t first = csv ? 3 : 2;  // point 1's phased row (0-based index)
    std::vector<std::string> twice = lines, swapped = lines;
    twice[first + 1] = twice[first];
    std::swap(swapped[first], swapped[first + 1]);
    for (const auto& [name, text] : {std::pair{"twice", twice}, std::pair{"swapped", swapped}}) {
      const Result r = resumeFrom(csv, joinLines(text), name);
      EXPECT_EQ(r.exitCode, 0) << name << r.err;
      EXPECT_EQ(r.out, fresh(csv)) << name << " (" << (csv ? "csv" : "jsonl") << ")";
      EXPECT_NE(r.err.find("line " + std::to_string(first + 1) + ": point 1 has rows"),
                std::string::npos)
          << name << r.err;
      EXPECT_NE(r.err.find("point 1 is run again"), std::string::npos) << name << r.err;
    }
  }
}

TEST(SweepHostile, ResumeRedoesTheTruncatedLastLinesPoint) {
  for (bool csv : {true, false}) {
    const std::string full = fresh(csv);
    const std::string cut = full.substr(0, full.size() - 20);
    const Result r = resumeFrom(csv, cut, "torn");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, full);
    EXPECT_NE(r.err.find("cut short"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("sweep: 1 point(s) run, 3 already"), std::string::npos) << r.err;
  }
}

TEST(SweepHostile, ResumeRefusesAnotherSweepsOutputByItsSweepHash) {
  // The same columns, another base: another sweep hash.
  json s = json::parse(slurp(resumeSweep()));
  s["base"]["model"]["hidden"] = 512;
  const fs::path other = testDir() / "resume" / "other.json";
  spit(other, s.dump(2));
  for (bool csv : {true, false}) {
    const fs::path out = testDir() / "resume" / (csv ? "other.csv" : "other.jsonl");
    spit(out, fresh(csv));
    const Result r = runSim("sweep " + other.string() + " --resume " +
                            (csv ? "--csv " : "--jsonl ") + out.string());
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find(csv ? "--csv: the file is another sweep's output"
                             : "--jsonl: line 1 is a row of another sweep"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(slurp(out), fresh(csv)) << "the other sweep's file is left as it was";
  }
}

// --- The digest column ---

namespace {

// The value after `label` up to the line's end in `out` ("" when absent).
std::string valueAfter(const std::string& out, const std::string& label) {
  const std::size_t at = out.find(label);
  if (at == std::string::npos) return "";
  const std::size_t from = at + label.size();
  return out.substr(from, out.find('\n', from) - from);
}

// The design -> digest of each row of a sweep's JSON lines.
std::map<std::string, std::string> digestsByDesign(const fs::path& jsonl) {
  std::map<std::string, std::string> out;
  for (const std::string& l : linesOf(slurp(jsonl))) {
    const json row = json::parse(l);
    out[row["design"].get<std::string>()] = row["digest"].get<std::string>();
  }
  return out;
}

}  // namespace

TEST(SweepHostile, TheDigestColumnIsWhatMoeSimRunPrintsForThatDesign) {
  const fs::path dir = testDir() / "digest";
  json point = smallScenario();
  point["rings"]["queue_chunks"] = 4;
  spit(dir / "point.json", point.dump(2));
  json s;
  s["base"] = "point.json";
  s["axes"] = {{{"field", "seed"}, {"values", {point["seed"]}}}};
  spit(dir / "sweep.json", s.dump(2));
  Result r = runSim("sweep " + (dir / "sweep.json").string() + " --jsonl " +
                    (dir / "rows.jsonl").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto rows = digestsByDesign(dir / "rows.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& [design, digest] : rows) {
    ASSERT_EQ(digest.size(), 16u) << design;
    // One design: the summary's digest line is that design's.
    r = runSim("run " + (dir / "point.json").string() + " --impl " + design);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(valueAfter(r.out, "\ndigest: "), digest) << design;
    // Both: each design's digest under the combined one.
    r = runSim("run " + (dir / "point.json").string() + " --impl both");
    EXPECT_EQ(valueAfter(r.out, "\n  " + design + ": "), digest) << design << r.out;
  }

  // The fused workload: both kernels always run; each has its line.
  spit(dir / "fused.json", R"({"base": {"workload": {"kind": "alltoall-matmul-rs"}},
                               "axes": [{"field": "seed", "values": [1]}]})");
  r = runSim("sweep " + (dir / "fused.json").string() + " --jsonl " +
             (dir / "fused.jsonl").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  json fusedScenario =
      json::parse(slurp(std::string(MOE_SOURCE_DIR) + "/resources/scenarios/default.json"));
  fusedScenario["workload"]["kind"] = "alltoall-matmul-rs";
  fusedScenario["seed"] = 1;
  spit(dir / "fused-point.json", fusedScenario.dump(2));
  r = runSim("run " + (dir / "fused-point.json").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto fused = digestsByDesign(dir / "fused.jsonl");
  ASSERT_EQ(fused.size(), 2u);
  for (const auto& [design, digest] : fused)
    EXPECT_EQ(valueAfter(r.out, "\n  " + design + ": "), digest) << design << r.out;
}

// --- Workers and memory ---

TEST(SweepHostile, TooLittleMemoryForMoreWorkersRunsFewerAndTheRowsDoNotChange) {
  const fs::path dir = testDir() / "workers";
  fs::create_directories(dir);
  const std::string sweep = resumeSweep().string();
  // No memory to spare for a second point (injected: the test does not depend on the RAM
  // of the machine it runs on): one worker, said on stderr, the same bytes as -j 1.
  Result r = runSim("sweep " + sweep + " -j 2 --csv " + (dir / "tight.csv").string(),
                    "MOE_TEST_MEMORY_AVAILABLE=1000000");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("sweep: using 1 workers instead of 2: each point needs ~"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(", 0.0 GB available"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir / "tight.csv"), fresh(true));
  // Room for both: no note, and still the same bytes.
  r = runSim("sweep " + sweep + " -j 2 --csv " + (dir / "roomy.csv").string(),
             "MOE_TEST_MEMORY_AVAILABLE=1000000000000");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err.find("workers instead of"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir / "roomy.csv"), fresh(true));
}

// --- Paths and number forms ---

TEST(SweepHostile, AxisTracePathsResolveAgainstTheSweepFileNotTheCwd) {
  const fs::path dir = testDir() / "axis-trace";
  // A routing trace for smallScenario's shape: 8 ranks x 16 tokens, top-4 of 16 experts.
  for (int shift : {0, 5}) {
    std::string text;
    for (int tok = 0; tok < 8 * 16; ++tok)
      for (int k = 0; k < 4; ++k)
        text += std::to_string((tok + shift + k) % 16) + (k == 3 ? "\n" : ",");
    spit(dir / "traces" / ("ids" + std::to_string(shift) + ".csv"), text);
  }
  json s;
  s["base"] = smallScenario();
  s["base"]["routing"]["distribution"] = "trace";
  s["base"]["routing"]["trace_file"] = "traces/ids0.csv";
  s["axes"] = {
      {{"field", "routing.trace_file"}, {"values", {"traces/ids0.csv", "traces/ids5.csv"}}}};
  s["designs"] = {"streaming"};
  spit(dir / "sweep.json", s.dump(2));

  // From the sweep file's directory, by a relative path, and from another directory.
  Result here = runSim("sweep sweep.json --csv here.csv", "cd '" + dir.string() + "' &&");
  ASSERT_EQ(here.exitCode, 0) << here.err;
  Result there =
      runSim("sweep " + (dir / "sweep.json").string() + " --csv " + (dir / "there.csv").string(),
             "cd / &&");
  ASSERT_EQ(there.exitCode, 0) << there.err;
  const std::string csv = slurp(dir / "here.csv");
  EXPECT_EQ(csv.find(",invalid,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",error,"), std::string::npos) << csv;
  ASSERT_EQ(linesOf(csv).size(), 3u) << csv;
  EXPECT_NE(linesOf(csv)[1].substr(linesOf(csv)[1].size() - 36),
            linesOf(csv)[2].substr(linesOf(csv)[2].size() - 36))
      << "two traces, two runs";
  EXPECT_EQ(slurp(dir / "there.csv"), csv) << "the rows do not depend on the cwd";
  // And a resume from a third directory keeps them (the sweep hash holds absolute paths).
  Result again = runSim(
      "sweep " + (dir / "sweep.json").string() + " --resume --csv " + (dir / "here.csv").string(),
      "cd '" + testDir().string() + "' &&");
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_NE(again.err.find("0 point(s) run, 2 already"), std::string::npos) << again.err;
  // An axis's trace is an input: no output may replace it.
  Result over = runSim("sweep " + (dir / "sweep.json").string() + " --csv " +
                       (dir / "traces" / "ids5.csv").string());
  EXPECT_EQ(over.exitCode, 2) << over.err;
  EXPECT_NE(over.err.find("is also the input"), std::string::npos) << over.err;
}

TEST(SweepHostile, NegativeZeroIsNeverWrittenInCsvOrJsonLines) {
  const fs::path dir = testDir() / "zero";
  json s;
  s["base"] = smallScenario();
  s["axes"] = {
      {{"field", "rings.chunk_bytes"}, {"values", {-0.0, 4096}}},
      {{"field", "routing.alpha"}, {"range", {{"from", -0.0}, {"to", 0.5}, {"step", 0.5}}}}};
  s["designs"] = {"phased"};
  spit(dir / "sweep.json", s.dump(2));
  const Result r = runSim("sweep " + (dir / "sweep.json").string() + " --csv " +
                          (dir / "z.csv").string() + " --jsonl " + (dir / "z.jsonl").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* name : {"z.csv", "z.jsonl"}) {
    const std::string text = slurp(dir / name);
    ASSERT_EQ(linesOf(text).size(), std::string(name) == "z.csv" ? 5u : 4u) << text;
    for (const char* before : {",", ":"})
      EXPECT_EQ(text.find(std::string(before) + "-0"), std::string::npos) << name << "\n" << text;
  }
  // And --resume reads them back as this sweep's rows.
  const Result again = runSim("sweep " + (dir / "sweep.json").string() + " --resume --csv " +
                              (dir / "z.csv").string() + " --jsonl " + (dir / "z.jsonl").string());
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_NE(again.err.find("0 point(s) run, 4 already"), std::string::npos) << again.err;
  // The zero is still there, as zero: point 0 is chunk_bytes 0.0, alpha 0.0.
  EXPECT_EQ(linesOf(slurp(dir / "z.csv"))[1].rfind("0,0.0,0.0,phased,invalid,", 0), 0u)
      << slurp(dir / "z.csv");
}

TEST(SweepHostile, ResumeNeverRewritesAFileThatIsNoSweepOutput) {
  for (const std::string& text : {std::string("hello"), std::string("hello\nworld\n")}) {
    for (bool csv : {true, false}) {
      const fs::path out = testDir() / "notes" / (csv ? "notes.csv" : "notes.jsonl");
      spit(out, text);
      const Result r = runSim("sweep " + resumeSweep().string() + " --resume " +
                              (csv ? "--csv " : "--jsonl ") + out.string());
      EXPECT_EQ(r.exitCode, 2) << text << r.err;
      EXPECT_NE(r.err.find(csv ? "--csv: the file's header is not this sweep's columns"
                               : "--jsonl: no line is a row of this sweep"),
                std::string::npos)
          << r.err;
      EXPECT_EQ(slurp(out), text) << "left as it was";
    }
  }
}
