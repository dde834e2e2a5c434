// Issue 17's property: any scenario `moe-sim validate` accepts, `moe-sim run --verify` runs
// to exit 0, or stops with exit 2 naming a field. Never exit 1 (no fault is injected, so a
// failed check or deadlock is a bug), never exit 3 (internal error), never a crash, never a
// hang. The scenarios are mutations of every field of a small payload-"none" base, the way
// scenario_fuzz_test mutates them for validation, but here the accepted ones are run.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/machine/hardware_profile.h"
#include "core/machine/hardware_profile_json.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Outcome {
  int code = -1;  // -1: killed by a signal
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `timeout 60`: a run that shows no end within a minute is a hang (exit 124).
Outcome moeSim(const std::string& args, const fs::path& dir) {
  const fs::path err = dir / "stderr.txt";
  const std::string cmd =
      "timeout 60 " + std::string(MOE_SIM_PATH) + " " + args + " >/dev/null 2>" + err.string();
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.err = slurp(err);
  return o;
}

// Two servers of four cards, 16 tokens of hidden 256, payload "none", with every hardware
// field spelled out so it can be mutated like the rest.
json smallBase() {
  std::ifstream in(std::string(MOE_SOURCE_DIR) + "/resources/scenarios/default.json");
  json j = json::parse(in);
  j["hardware"]["overrides"] = moe::profileToJson(moe::builtinProfile("ascend-910b3"));
  j["hardware"]["overrides"]["cards_per_server"] = 4;
  j["cluster"] = {{"servers", 2}, {"cards_per_server", 4}};
  j["model"] = {{"tokens_per_rank", 16},
                {"hidden", 256},
                {"experts", 16},
                {"topk", 4},
                {"intermediate", 512}};
  j["rings"]["chunk_bytes"] = 4096;
  j["payload"] = "none";
  j["event_log_capacity"] = 65536;
  return j;
}

struct Leaf {
  std::string pointer;
  json value;
};

void collectLeaves(const json& j, const std::string& ptr, std::vector<Leaf>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) collectLeaves(*it, ptr + "/" + it.key(), out);
  } else {
    out.push_back({ptr, j});
  }
}

// Values around and away from the base value that keep shapes small: the edges a kernel or
// the machine model can hit (0, 1, the minimum bandwidth, halves and doubles).
std::vector<json> mutationsOf(const std::string& ptr, const json& v) {
  if (v.is_number_integer()) {
    const std::int64_t x = v.get<std::int64_t>();
    std::vector<json> out = {0, 1, 2, x / 2, x * 2, 4096};
    if (ptr.find("cluster") != std::string::npos ||
        ptr.find("cards_per_server") != std::string::npos ||
        ptr.find("servers") != std::string::npos)
      out = {0, 1, 3, x * 2};  // more cards, not thousands of them
    return out;
  }
  if (v.is_number()) {
    const double x = v.get<double>();
    return {0.0, 0.001, x / 1000, x * 2, 1.0};
  }
  if (ptr == "/routing/distribution") return {"uniform", "power-law", "hotspot", "group-limited"};
  if (ptr == "/payload") return {"full"};
  if (ptr == "/dispatch_impl") return {"phased", "streaming"};
  if (ptr == "/hardware/profile") return {"ascend-910b2", "atlas-a3-die"};
  if (ptr == "/hardware/overrides/fabric") return {"supernode"};
  if (ptr == "/eplb/table_from") return {"expected-load", "warm-up"};
  if (ptr == "/combine/shared_expert" || ptr == "/combine/add_rms_norm") return {true};
  return {};
}

struct Scenario {
  std::string name;
  json doc;
};

std::vector<Scenario> buildScenarios() {
  const json base = smallBase();
  std::vector<Scenario> out = {{"base", base}};
  std::vector<Leaf> leaves;
  collectLeaves(base, "", leaves);
  for (const Leaf& leaf : leaves) {
    if (leaf.pointer.rfind("/workload", 0) == 0) continue;  // the fused workload: below
    for (const json& m : mutationsOf(leaf.pointer, leaf.value)) {
      json j = base;
      j[json::json_pointer(leaf.pointer)] = m;
      out.push_back({leaf.pointer + "=" + m.dump(), j});
    }
  }
  // Degenerate workloads: every token pruned, no active token, experts that receive nothing.
  auto edit = [&](const std::string& name, auto f) {
    json j = base;
    f(j);
    out.push_back({name, j});
  };
  edit("every pruning threshold 1.0", [](json& j) {
    j["eplb"]["pruning_threshold"] = json::array({1.0, 1.0, 1.0, 1.0});
  });
  edit("active_tokens 0 with pruning", [](json& j) {
    j["eplb"]["pruning_threshold"] = json::array({0.0, 0.0, 0.0, 0.0});
    j["eplb"]["active_tokens"] = 0;
  });
  edit("active_tokens 0", [](json& j) {
    j["eplb"]["pruning_threshold"] = json::array({0.1, 0.1, 0.1, 0.1});
    j["eplb"]["active_tokens"] = 0;
  });
  edit("one hot expert", [](json& j) {
    j["routing"]["distribution"] = "hotspot";
    j["routing"]["hotspot_experts"] = 4;
    j["routing"]["hotspot_fraction"] = 0.999;
  });
  edit("one token per rank", [](json& j) { j["model"]["tokens_per_rank"] = 1; });
  edit("fused workload", [](json& j) {
    j["workload"] = {{"kind", "alltoall-matmul-rs"},
                     {"ranks", 4},
                     {"m", 128},
                     {"n", 256},
                     {"k", 256},
                     {"tile_m", 32},
                     {"tile_n", 128},
                     {"tile_k", 128},
                     {"stages", 2}};
  });
  return out;
}

}  // namespace

TEST(AcceptedInputsRun, EveryScenarioValidateAcceptsRunsToExit0Or2) {
  const fs::path dir = fs::temp_directory_path() / ("moe_accepted_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::vector<Scenario> scenarios = buildScenarios();
  ASSERT_GE(scenarios.size(), 200u);
  int accepted = 0, ran = 0, refusedAtRun = 0;
  std::vector<std::string> failures;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const fs::path file = dir / ("s" + std::to_string(i) + ".json");
    std::ofstream(file) << scenarios[i].doc.dump(2);
    const Outcome v = moeSim("validate " + file.string(), dir);
    if (v.code != 0 && v.code != 2)
      failures.push_back(scenarios[i].name + " [validate]: exit " + std::to_string(v.code) +
                         "\n  " + v.err.substr(0, 300));
    if (v.code != 0) continue;
    ++accepted;
    const Outcome r = moeSim("run --verify " + file.string(), dir);
    if (r.code == 0) ++ran;
    if (r.code == 2) {
      ++refusedAtRun;
      // Exit 2 must say which field to change.
      if (r.err.find("error: ") == std::string::npos || r.err.find(": ", 7) == std::string::npos)
        failures.push_back(scenarios[i].name + " [run]: exit 2 without a field\n  " + r.err);
    } else if (r.code != 0) {
      failures.push_back(scenarios[i].name + " [run]: exit " + std::to_string(r.code) +
                         (r.code == 124 ? " (hang)"
                          : r.code == 3 ? " (internal error)"
                                        : "") +
                         "\n  " + r.err.substr(0, 300));
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  std::cout << "[ info ] " << scenarios.size() << " scenarios, " << accepted
            << " accepted by validate: " << ran << " ran (exit 0), " << refusedAtRun
            << " stopped with exit 2\n";
  EXPECT_GE(ran, 100) << "too few accepted scenarios ran: the base must be valid";
  for (std::size_t i = 0; i < failures.size() && i < 25; ++i) ADD_FAILURE() << failures[i];
  EXPECT_TRUE(failures.empty()) << failures.size() << " scenarios failed";
}
