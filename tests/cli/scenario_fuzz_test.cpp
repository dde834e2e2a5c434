// Mutation test of scenario input through the real moe-sim binary (DESIGN.md §6: bad input exits
// 2 with the field path, never a crash, never a hang). Hundreds of deterministic mutations of
// the default scenario are written to files and fed to `moe-sim validate` and `moe-sim run`.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/machine/hardware_profile.h"
#include "core/machine/hardware_profile_json.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name;     // for failure messages
  std::string content;  // the file's bytes
  std::string path;     // the field path stderr must name; empty: only "error:" is required
};

struct Outcome {
  bool exited = false;
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFile(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

// Runs moe-sim under `timeout 20`, so a hang shows up as exit 124 rather than a stuck test.
Outcome runMoeSim(const std::string& args, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "timeout 20 " + std::string(MOE_SIM_PATH) + " " + args + " >" +
                          out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.exited = status != -1 && WIFEXITED(status);
  o.code = o.exited ? WEXITSTATUS(status) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("moe_scenario_fuzz_" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string dotted(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

struct Leaf {
  std::string pointer;  // JSON pointer, for editing
  std::string path;     // dotted path, as the error names it
  json value;
};

void collectLeaves(const json& j, const std::string& ptr, const std::string& path,
                   std::vector<Leaf>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      collectLeaves(*it, ptr + "/" + it.key(), dotted(path, it.key()), out);
  } else {
    out.push_back({ptr, path, j});
  }
}

json with(json base, const std::string& ptr, json value) {
  base[json::json_pointer(ptr)] = std::move(value);
  return base;
}

// The default scenario with every hardware field spelled out as an override (with its
// profile value, so still valid): then the overrides are leaves to mutate like the rest.
json baseScenario() {
  std::ifstream in(std::string(MOE_SOURCE_DIR) + "/resources/scenarios/default.json");
  json j = json::parse(in);
  j["hardware"]["overrides"] = moe::profileToJson(moe::builtinProfile("ascend-910b3"));
  return j;
}

// Absurd numeric values that a few fields legitimately accept.
bool validAnyway(const std::string& path, const json& v) {
  // Not `v >= 0`: nlohmann compares 2^63 (unsigned) with 0 by casting it to int64.
  const bool nonNegativeInteger =
      v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
  if (path == "seed") return nonNegativeInteger;
  if (path == "eplb.active_tokens") return v == json(-1);
  if (path == "hardware.overrides.hbm_bytes")
    return nonNegativeInteger && v.get<std::uint64_t>() <= (std::uint64_t{1} << 44);
  return false;
}

std::vector<Case> buildCases() {
  std::vector<Case> cases;
  const json base = baseScenario();
  std::vector<Leaf> leaves;
  collectLeaves(base, "", "", leaves);

  // 1. Wrong types at every leaf (null is not among them: the schema reads null as absent).
  for (const auto& leaf : leaves) {
    std::vector<json> wrong;
    if (leaf.value.is_number()) {
      wrong = {"7", true, json::array({1}), json{{"v", 1}}};
      if (leaf.value.is_number_integer()) wrong.push_back(1.5);
    } else if (leaf.value.is_string()) {
      wrong = {7, false, json::array({"x"}), json{{"x", "y"}}};
    } else if (leaf.value.is_array()) {
      wrong = {"x", 3, json{{"a", 1}}, json::array({true})};
    }
    for (const auto& w : wrong)
      cases.push_back(
          {"type " + leaf.path + "=" + w.dump(), with(base, leaf.pointer, w).dump(2), leaf.path});
  }

  // 2. Absurd sizes and signs at every numeric leaf: 2^31 and 2^32 catch int truncation.
  const std::vector<json> absurd = {-1,
                                    1e300,
                                    json(std::int64_t{1000000000000}),
                                    json(std::int64_t{-2147483649}),
                                    json(std::uint64_t{2147483648u}),
                                    json(std::uint64_t{4294967296u}),
                                    json(std::uint64_t{9223372036854775808u})};
  for (const auto& leaf : leaves) {
    if (!leaf.value.is_number()) continue;
    for (const auto& v : absurd) {
      if (validAnyway(leaf.path, v)) continue;
      cases.push_back(
          {"absurd " + leaf.path + "=" + v.dump(), with(base, leaf.pointer, v).dump(), leaf.path});
    }
  }

  // Whole sections of the wrong type.
  for (const std::string section :
       {"hardware", "hardware/overrides", "cluster", "model", "routing", "eplb", "rings"}) {
    std::string path = section;
    for (auto& c : path)
      if (c == '/') c = '.';
    for (const json& w : {json(5), json("x"), json::array({json::object()})})
      cases.push_back(
          {"section " + path + "=" + w.dump(), with(base, "/" + section, w).dump(), path});
  }

  // 3. Bad elements inside the arrays.
  cases.push_back({"table element", with(base, "/eplb/table", json::parse("[[1, \"x\"]]")).dump(),
                   "eplb.table[0][1]"});
  cases.push_back(
      {"table row", with(base, "/eplb/table", json::parse("[[1, 0], 5]")).dump(), "eplb.table[1]"});
  cases.push_back({"threshold element",
                   with(base, "/eplb/pruning_threshold", json::parse("[0.1, \"x\"]")).dump(),
                   "eplb.pruning_threshold[1]"});
  cases.push_back({"threshold 1e300",
                   with(base, "/eplb/pruning_threshold", json::array({1e300})).dump(),
                   "eplb.pruning_threshold[0]"});

  // 4. Unknown keys at every level.
  const std::vector<std::pair<std::string, std::string>> levels = {
      {"", ""},
      {"/hardware", "hardware"},
      {"/hardware/overrides", "hardware.overrides"},
      {"/cluster", "cluster"},
      {"/model", "model"},
      {"/routing", "routing"},
      {"/eplb", "eplb"},
      {"/rings", "rings"}};
  for (const auto& [ptr, path] : levels)
    for (const std::string key : {"alfa", "Servers", "x y", "\xc3\xa9t\xc3\xa9", ""})
      cases.push_back({"unknown key " + dotted(path, key), with(base, ptr + "/" + key, 1).dump(),
                       key.empty() && path.empty() ? "unknown key" : dotted(path, key)});

  // 5. Wrong enum strings.
  const std::vector<std::pair<std::string, std::vector<std::string>>> enums = {
      {"routing.distribution", {"powerlaw", "Uniform", "", "power-law "}},
      {"payload", {"partial", "FULL"}},
      {"dispatch_impl", {"stream", "every"}},
      {"hardware.profile", {"ascend-910c", "", "ASCEND-910B3"}},
      {"hardware.overrides.fabric", {"torus", "mesh"}}};
  for (const auto& [path, values] : enums) {
    std::string ptr = "/" + path;
    for (auto& c : ptr)
      if (c == '.') c = '/';
    for (const auto& v : values)
      cases.push_back({"enum " + path + "=" + v, with(base, ptr, v).dump(), path});
  }

  // 6. Consistent-looking values that break a cross-field rule.
  const std::vector<std::tuple<std::string, json, std::string>> cross = {
      {"/cluster/cards_per_server", 4, "cluster.cards_per_server"},
      {"/model/experts", 60, "model.experts"},
      {"/eplb/place_per_rank", 65, "eplb.place_per_rank"},
      {"/eplb/table", json::parse("[[1, 0]]"), "eplb.table"},
      {"/eplb/pruning_threshold", json::array({0.5}), "eplb.pruning_threshold"},
      {"/eplb/active_tokens", 129, "eplb.active_tokens"},
      {"/routing/trace_file", "", "routing.trace_file"},
      {"/rings/chunk_bytes", 1000, "rings.chunk_bytes"},
      {"/rings/sender_cores", 30, "rings"},
      {"/name", std::string(300, 'n'), "name"}};
  for (const auto& [ptr, v, path] : cross) {
    json j = with(base, ptr, v);
    if (path == "routing.trace_file") j["routing"]["distribution"] = "trace";
    cases.push_back({"cross " + path, j.dump(), path});
  }
  {
    json j = with(with(base, "/routing/distribution", "group-limited"), "/routing/groups", 7);
    cases.push_back({"cross routing.groups", j.dump(), "routing.groups"});
    j = with(with(base, "/routing/distribution", "hotspot"), "/routing/hotspot_experts", 65);
    cases.push_back({"cross routing.hotspot_experts", j.dump(), "routing.hotspot_experts"});
    // 512 ranks x 512 tokens x 16384 hidden x 2 B x 17 = 146 GB of token data.
    j = with(base, "/cluster/servers", 64);
    j["model"] = {{"tokens_per_rank", 512}, {"hidden", 16384}, {"experts", 1024}, {"topk", 16}};
    cases.push_back({"size guard", j.dump(), "model"});
  }

  // 7. Broken syntax: truncation at many cut points, and each brace or bracket removed.
  const std::string text = base.dump(2);
  // mt19937_64's output sequence is fixed by the standard (distributions are not, hence the
  // plain modulo), so the cases are the same everywhere.
  std::mt19937_64 rng(20240601);
  const auto below = [&rng](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  cases.push_back({"empty file", "", "not valid JSON"});
  for (int i = 0; i < 60; ++i) {
    const std::size_t cut = below(text.size() - 1);  // any proper prefix is invalid
    cases.push_back({"truncated at " + std::to_string(cut), text.substr(0, cut), "not valid JSON"});
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' || c == '}' || c == '[' || c == ']')
      cases.push_back({"removed '" + std::string(1, c) + "' at " + std::to_string(i),
                       text.substr(0, i) + text.substr(i + 1), "not valid JSON"});
  }

  // 8. Not an object at the top level.
  for (const std::string t : {"[]", "1", "\"x\"", "true", "null", "[{}]", "-1", "1e300"})
    cases.push_back({"top level " + t, t, "(top level)"});

  // 9. Garbage: whitespace, NULs, invalid UTF-8, deep nesting, random bytes.
  cases.push_back({"whitespace", " \n\t\r ", "not valid JSON"});
  cases.push_back({"nul bytes", std::string(16, '\0'), "not valid JSON"});
  cases.push_back({"invalid utf-8", "{\"name\": \"\xff\xfe\"}", "not valid JSON"});
  cases.push_back({"bom + garbage", "\xef\xbb\xbf{{", "not valid JSON"});
  // Refused where level 65 opens, before the rest is read.
  cases.push_back({"deep unclosed", std::string(100000, '['), "nested 65 levels deep"});
  cases.push_back({"deep closed", std::string(100000, '[') + std::string(100000, ']'),
                   "nested 65 levels deep"});
  for (int i = 0; i < 30; ++i) {
    std::string bytes(1 + below(512), '\0');
    for (auto& b : bytes) b = static_cast<char>(below(256));
    cases.push_back({"random bytes " + std::to_string(i), bytes, ""});
  }

  // 10. Duplicate keys (nlohmann alone keeps the last one silently) and numbers beyond a
  // double, which used to end in "internal error" (exit 3).
  cases.push_back({"duplicate top-level key", "{\"seed\": 1, \"seed\": 2}", "seed"});
  {
    std::string dup = text;
    dup.replace(dup.find("\"hidden\":"), 9, "\"hidden\": 7, \"hidden\":");
    cases.push_back({"duplicate model.hidden", dup, "model.hidden"});
  }
  cases.push_back({"number overflow", "{\"seed\": 1e999999999999}", "overflows a double"});
  cases.push_back(
      {"400-digit integer", "{\"seed\": " + std::string(400, '9') + "}", "overflows a double"});
  cases.push_back({"overflow in a table",
                   with(base, "/eplb/pruning_threshold", json::array({0.5}))
                       .dump()
                       .insert(1, "\"x\": -1e400, "),
                   "overflows a double"});
  return cases;
}

bool runIsRegistered(const fs::path& dir) {
  const Outcome help = runMoeSim("--help", dir);
  return help.out.find("\n  run ") != std::string::npos;
}

}  // namespace

TEST(ScenarioFuzz, DefaultScenarioCommandMatchesTheResourceAndValidates) {
  TempDir tmp;
  const Outcome o = runMoeSim("scenario --default", tmp.path());
  ASSERT_TRUE(o.exited);
  ASSERT_EQ(o.code, 0) << o.err;
  std::ifstream in(std::string(MOE_SOURCE_DIR) + "/resources/scenarios/default.json");
  EXPECT_EQ(json::parse(o.out), json::parse(in));
  EXPECT_NE(o.out.find("\n  \"cluster\": {\n    \"cards_per_server\": 8"), std::string::npos)
      << "expected 2-space indentation:\n"
      << o.out;

  const fs::path file = tmp.path() / "default.json";
  writeFile(file, o.out);
  const Outcome v = runMoeSim("validate " + file.string(), tmp.path());
  ASSERT_TRUE(v.exited);
  EXPECT_EQ(v.code, 0) << v.err;
  EXPECT_EQ(v.out, "ok: " + file.string() + "\n");
}

TEST(ScenarioFuzz, MutatedScenariosAreRejectedWithTheirPath) {
  TempDir tmp;
  // The unmutated base must be valid, or every mutation would "pass" for the wrong reason.
  const fs::path baseFile = tmp.path() / "base.json";
  writeFile(baseFile, baseScenario().dump(2));
  const Outcome b = runMoeSim("validate " + baseFile.string(), tmp.path());
  ASSERT_TRUE(b.exited);
  ASSERT_EQ(b.code, 0) << b.err;

  const std::vector<Case> cases = buildCases();
  ASSERT_GE(cases.size(), 300u);
  // `run` is written in another branch; until it is merged CLI11 rejects the unknown
  // subcommand with exit 2 but without our "error: PATH" message, so only the exit code
  // is checked for it then.
  const bool haveRun = runIsRegistered(tmp.path());
  if (!haveRun) std::cout << "[ note ] moe-sim has no `run` yet: checking its exit code only\n";

  std::vector<std::string> failures;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const fs::path file = tmp.path() / ("case_" + std::to_string(i) + ".json");
    writeFile(file, c.content);
    std::vector<std::string> commands = {"validate"};
    if (i % 4 == 0) commands.push_back("run");
    for (const auto& cmd : commands) {
      const Outcome o = runMoeSim(cmd + " " + file.string(), tmp.path());
      const bool full = cmd == "validate" || haveRun;
      std::string why;
      if (!o.exited)
        why = "did not exit normally (crash or signal)";
      else if (o.code != 2)
        why = "exit " + std::to_string(o.code) + (o.code == 124 ? " (timeout: hang)" : "");
      else if (full && o.err.find("error:") == std::string::npos)
        why = "stderr lacks \"error:\"";
      else if (full && !c.path.empty() && o.err.find(c.path) == std::string::npos)
        why = "stderr does not name \"" + c.path + "\"";
      if (!why.empty())
        failures.push_back("#" + std::to_string(i) + " " + c.name + " [" + cmd + "]: " + why +
                           "\n  stderr: " + o.err.substr(0, 400));
    }
  }
  for (std::size_t i = 0; i < failures.size() && i < 25; ++i) ADD_FAILURE() << failures[i];
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << cases.size() << " cases failed";
}
