// The real CANN operators' limits as `moe-sim run` and `moe-sim validate` report them:
// warnings on stderr, --strict turning each into an error naming the field (exit 2), and the
// HCCL_BUFFSIZE line of the run summary.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/sim_process.h"

namespace fs = std::filesystem;

namespace {

const fs::path& testDir() {
  static const fs::path dir =
      fs::temp_directory_path() / ("moe_operator_limits_cli_test_" + std::to_string(getpid()));
  return dir;
}

moe::clitest::SimResult runSim(const std::string& args) {
  return moe::clitest::runMoeSim(args, testDir());
}

// The default scenario with the flat design (commAlg fullmesh on A2) and BS 512.
fs::path overBatchFile() {
  std::ifstream in(std::string(MOE_SOURCE_DIR) + "/resources/scenarios/default.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["model"]["tokens_per_rank"] = 512;
  j["dispatch_impl"] = "flat";
  const fs::path p = testDir() / "over-batch.json";
  fs::create_directories(p.parent_path());
  std::ofstream(p) << j.dump(2);
  return p;
}

const std::string kOverBatch =
    "model.tokens_per_rank: the real MoeDistributeDispatchV2 on A2 (commAlg fullmesh) accepts "
    "BS <= 256; this scenario has 512";

TEST(OperatorLimitsCli, DefaultRunPrintsNoWarningAndTheBuffsize) {
  const auto r = runSim("run");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err.find("warning:"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("real CANN operators on A2: HCCL_BUFFSIZE >= 129 MB per card (commAlg "
                       "hierarchy, set by MoeDistributeDispatchV2)"),
            std::string::npos)
      << r.out;
}

TEST(OperatorLimitsCli, ValidateWarnsAndStillAccepts) {
  const fs::path f = overBatchFile();
  const auto r = runSim("validate " + f.string());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + kOverBatch), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("ok: "), std::string::npos);
}

TEST(OperatorLimitsCli, StrictMakesEachLimitAnError) {
  const fs::path f = overBatchFile();
  for (const std::string cmd : {"run ", "validate "}) {
    const auto r = runSim(cmd + f.string() + " --strict");
    EXPECT_EQ(r.exitCode, 2) << cmd << r.err;
    EXPECT_NE(r.err.find("error: " + kOverBatch), std::string::npos) << cmd << r.err;
    EXPECT_NE(r.err.find("error: model.tokens_per_rank: the real MoeDistributeCombineV2"),
              std::string::npos)
        << cmd << r.err;
    EXPECT_EQ(r.out.find("digest: "), std::string::npos) << "a strict run must not start";
  }
}

TEST(OperatorLimitsCli, ExampleThatRemapsExpertsWarnsAboutUpdateExpert) {
  const fs::path f = fs::path(MOE_SOURCE_DIR) / "examples/scenarios/pruned-by-token.json";
  const auto r = runSim("validate " + f.string());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("warning: eplb.pruning_threshold: the real MoeUpdateExpert is not "
                       "documented for A2; this scenario calls it"),
            std::string::npos)
      << r.err;
}

}  // namespace
