// `moe-sim designs` lists the design registry: every design the scenario and --impl accept,
// with its stages in run order and its knobs, as text and as JSON.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "sim_process.h"

namespace {

std::filesystem::path testDir() {
  return std::filesystem::temp_directory_path() / "moe_designs_cli_test";
}

TEST(DesignsCli, JsonListsEveryDesignWithItsWorkloadStagesAndKnobs) {
  const auto r = moe::clitest::runMoeSim("designs --json", testDir());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::set<std::string> names;
  for (const auto& d : j) {
    names.insert(d.at("name").get<std::string>());
    EXPECT_FALSE(d.at("stages").empty());
    EXPECT_FALSE(d.at("description").get<std::string>().empty());
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"phased", "streaming", "flat", "pipelined", "sequential"}));
  EXPECT_EQ(j[1].at("name"), "streaming");
  EXPECT_EQ(j[1].at("workload"), "moe-layer");
  EXPECT_EQ(j[1].at("stages").back(), "combine-streaming");
  EXPECT_NE(std::find(j[1].at("knobs").begin(), j[1].at("knobs").end(), "rings.queue_chunks"),
            j[1].at("knobs").end());
}

TEST(DesignsCli, EveryListedLayerDesignIsAnImplTheRunCommandAccepts) {
  const auto list = moe::clitest::runMoeSim("designs --json", testDir());
  ASSERT_EQ(list.exitCode, 0) << list.err;
  for (const auto& d : nlohmann::json::parse(list.out)) {
    if (d.at("workload") != "moe-layer") continue;
    const std::string name = d.at("name");
    // A bad value is refused before any work; a good one passes the option check and fails
    // only on the (deliberately) missing scenario file.
    const auto r = moe::clitest::runMoeSim("run --impl " + name + " /nonexistent.json", testDir());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.find("--impl"), std::string::npos) << name << ": " << r.err;
  }
  const auto bad = moe::clitest::runMoeSim("run --impl hierarchical", testDir());
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--impl"), std::string::npos) << bad.err;
}

TEST(DesignsCli, TextNamesEachDesignWithItsStages) {
  const auto r = moe::clitest::runMoeSim("designs", testDir());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("flat (moe-layer): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  stages: all-to-all matmul reduce-scatter\n"), std::string::npos) << r.out;
}

}  // namespace
