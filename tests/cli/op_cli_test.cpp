// `moe-sim op` run as a user would: real binary, case files on disk, exit codes, stdout JSON
// and stderr messages.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct RunResult {
  int exitCode = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

class OpCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("moe_op_cli_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a case file in the temp dir and returns its path.
  std::string writeCase(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  // Runs moe-sim with the given (already quoted) arguments, capturing both streams.
  RunResult run(const std::string& args) {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string cmd = quoted(MOE_SIM_PATH) + " " + args + " >" + quoted(out.string()) +
                            " 2>" + quoted(err.string());
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  RunResult runOp(const std::string& op, const std::string& caseText) {
    return run("op " + op + " --input " + quoted(writeCase("case.json", caseText)));
  }

  // Expects exit 2 with "error: PATH: ..." naming `path` and containing `fragment`.
  void expectBadInput(const RunResult& r, const std::string& path, const std::string& fragment) {
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << "nothing on stdout on failure, got: " << r.out;
    EXPECT_NE(r.err.find("error: " + path + ": "), std::string::npos)
        << "stderr lacks the path " << path << ": " << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos)
        << "stderr lacks " << fragment << ": " << r.err;
  }

  fs::path dir_;
};

const char* kUpdateExpertCase = R"({
  "expert_ids": [[0, 1], [2, 0]],
  "eplb_table": [[2, 0, 1], [1, 2, -1], [1, 3, -1]],
  "local_rank_id": 3,
  "world_size": 4,
  "balance_mode": 0
})";

// kUpdateExpertCase with `key` replaced by `value` (JSON text).
std::string updateExpertWith(const std::string& key, const std::string& value) {
  json j = json::parse(kUpdateExpertCase);
  j[key] = json::parse(value);
  return j.dump();
}

const char* kLayoutCase = R"({
  "topk_idx": [[0, 3], [-1, 1]],
  "num_ranks": 2,
  "num_experts": 4,
  "ranks_per_server": 8
})";

}  // namespace

TEST_F(OpCli, ExampleUpdateExpertCaseRuns) {
  const auto r =
      run("op update-expert --input " + quoted(MOE_SOURCE_DIR "/examples/op/update-expert.json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out.size(), 3u) << out.dump();
  EXPECT_EQ(out.at("balanced_expert_ids"), json::parse("[[0, 1], [2, 4], [3, 0], [2, 0]]"));
  EXPECT_EQ(out.at("balanced_active_mask"),
            json::parse("[[true, true], [true, true], [true, false], [false, false]]"));
  EXPECT_EQ(out.at("place_per_rank"), 1);
}

TEST_F(OpCli, ExampleLayoutCaseRuns) {
  const auto r = run("op layout --input " + quoted(MOE_SOURCE_DIR "/examples/op/layout.json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out.size(), 4u) << out.dump();
  EXPECT_EQ(out.at("num_tokens_per_rank"), json::parse("[2, 2, 1, 2]"));
  EXPECT_EQ(out.at("num_tokens_per_rdma_rank"), json::parse("[2, 3]"));
  EXPECT_EQ(out.at("num_tokens_per_expert"), json::parse("[1, 1, 1, 1, 1, 1, 2, 1]"));
  EXPECT_EQ(out.at("is_token_in_rank"),
            json::parse("[[true, true, false, false], [true, true, false, false],"
                        " [false, false, false, true], [false, false, true, false],"
                        " [false, false, false, true]]"));
}

TEST_F(OpCli, UpdateExpertWithoutPruningPrintsNoMask) {
  const auto r = runOp("update-expert", kUpdateExpertCase);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_FALSE(out.contains("balanced_active_mask"));
  // Rank 3 of 4, expert 0 with 2 instances: ceil(4/2) = 2, place 3/2+1 = 2 -> instance 1.
  EXPECT_EQ(out.at("balanced_expert_ids"), json::parse("[[1, 2], [3, 1]]"));
  EXPECT_EQ(out.at("place_per_rank"), 1);
}

TEST_F(OpCli, OutputIsPrettyPrintedWithTwoSpaceIndent) {
  const auto r = runOp("layout", kLayoutCase);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\n  \"", 0), 0u) << r.out;
  // Token 0 reaches both ranks (experts 0 and 3), token 1 only rank 0 (-1 is skipped).
  EXPECT_EQ(json::parse(r.out).at("num_tokens_per_rank"), json::parse("[2, 1]"));
}

TEST_F(OpCli, MissingFileIsBadInputNamingTheOption) {
  expectBadInput(run("op layout --input " + quoted((dir_ / "nope.json").string())), "--input",
                 "no such file");
}

TEST_F(OpCli, DirectoryAsInputIsBadInput) {
  expectBadInput(run("op layout --input " + quoted(dir_.string())), "--input",
                 "not a regular file");
}

TEST_F(OpCli, MissingInputOptionIsBadInput) {
  const auto r = run("op layout");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--input"), std::string::npos) << r.err;
}

TEST_F(OpCli, MalformedJsonIsBadInputWithItsPosition) {
  expectBadInput(runOp("layout", "{\"num_ranks\": 2,\n \"num_experts\": }"), "--input", "line 2");
}

TEST_F(OpCli, NumberTooLargeForJsonIsBadInput) {
  expectBadInput(runOp("layout", R"({"num_ranks": 1e999})"), "--input", "malformed JSON");
}

TEST_F(OpCli, DeeplyNestedJsonIsRefusedWithoutCrashing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto r = runOp("layout", "{\"topk_idx\": " + deep + "}");
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("topk_idx"), std::string::npos) << r.err;
}

TEST_F(OpCli, TopLevelMustBeAnObject) {
  expectBadInput(runOp("layout", "[1, 2]"), "(top level)", "JSON object");
}

TEST_F(OpCli, UnknownOperatorIsBadInputListingKnownOnes) {
  expectBadInput(runOp("combine-magic", kLayoutCase), "op", "update-expert, layout");
}

TEST_F(OpCli, UnknownKeyIsRejectedWithItsPath) {
  expectBadInput(runOp("update-expert", updateExpertWith("world_sise", "4")), "world_sise",
                 "unknown key");
  expectBadInput(runOp("layout", R"({"topk_idx": [[0]], "num_ranks": 1, "num_experts": 1,
                                      "ranks_per_server": 8, "extra": true})"),
                 "extra", "unknown key");
}

TEST_F(OpCli, MissingRequiredKeyIsRejectedWithItsPath) {
  json j = json::parse(kUpdateExpertCase);
  j.erase("local_rank_id");
  expectBadInput(runOp("update-expert", j.dump()), "local_rank_id", "is required");
}

TEST_F(OpCli, WrongTypesAreRejectedWithTheirPaths) {
  expectBadInput(runOp("update-expert", updateExpertWith("world_size", "\"4\"")), "world_size",
                 "must be an integer");
  expectBadInput(runOp("update-expert", updateExpertWith("expert_ids", "[[0, 1], [\"2\", 0]]")),
                 "expert_ids[1][0]", "must be an integer");
  expectBadInput(runOp("update-expert", updateExpertWith("eplb_table", "{}")), "eplb_table",
                 "must be an array");
  json j = json::parse(kUpdateExpertCase);
  j["expert_scales"] = json::parse("[[0.5, 0.5], [0.5, \"x\"]]");
  j["pruning_threshold"] = json::parse("[0.1, 0.1]");
  expectBadInput(runOp("update-expert", j.dump()), "expert_scales[1][1]", "must be a number");
  j["expert_scales"] = json::parse("[[0.5, 0.5], [0.5, 0.5]]");
  j["active_mask"] = json::parse("[true, 1]");
  expectBadInput(runOp("update-expert", j.dump()), "active_mask[1]", "true or false");
}

TEST_F(OpCli, RaggedOrMisshapedMatricesAreRejected) {
  expectBadInput(runOp("update-expert", updateExpertWith("expert_ids", "[[0, 1], [2]]")),
                 "expert_ids[1]", "as many elements as row 0");
  json j = json::parse(kUpdateExpertCase);
  j["expert_scales"] = json::parse("[[0.5, 0.5], [0.5]]");
  j["pruning_threshold"] = json::parse("[0.1, 0.1]");
  expectBadInput(runOp("update-expert", j.dump()), "expert_scales[1]", "expert_ids row (2)");
}

TEST_F(OpCli, BadValuesAreRejectedWithTheirPaths) {
  expectBadInput(runOp("update-expert", updateExpertWith("world_size", "1")), "world_size",
                 "2 <= world_size <= 768");
  // A repeated instance id: the real operator accepts it (a warning), --strict refuses it.
  expectBadInput(run("op update-expert --strict --input " +
                     quoted(writeCase("dup.json", updateExpertWith("eplb_table",
                                                                   "[[2, 0, 1], [1, 2, -1], "
                                                                   "[1, 1, -1]]")))),
                 "eplb_table[2][1]", "unique");
  expectBadInput(runOp("update-expert", updateExpertWith("balance_mode", "3")), "balance_mode",
                 "0 (by rank) or 1 (by token)");
  expectBadInput(runOp("update-expert", updateExpertWith("pruning_threshold", "[0.5, 0.5]")),
                 "expert_scales", "given together");
  expectBadInput(runOp("layout", R"({"topk_idx": [[0, 4]], "num_ranks": 2, "num_experts": 4,
                                      "ranks_per_server": 8})"),
                 "topk_idx[0][1]", "< num_experts");
  expectBadInput(runOp("layout", R"({"topk_idx": [[0]], "num_ranks": 3, "num_experts": 4,
                                      "ranks_per_server": 8})"),
                 "num_experts", "multiple of num_ranks");
}

TEST_F(OpCli, ExampleEplbCaseMatchesThePublishedPlacement) {
  const auto r = run("op eplb --input " + quoted(MOE_SOURCE_DIR "/examples/op/eplb.json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out.size(), 3u) << out.dump();
  EXPECT_EQ(out.at("phy2log"), json::parse("[[5, 6, 5, 7, 8, 4, 3, 4, 10, 9, 10, 2, 0, 1, 11, 1],"
                                           " [7, 10, 6, 8, 6, 11, 8, 9, 2, 4, 5, 1, 5, 0, 3, 1]]"));
  EXPECT_EQ(out.at("logcnt")[0], json::parse("[1, 2, 1, 1, 2, 2, 1, 1, 1, 1, 2, 1]"));
  EXPECT_EQ(out.at("log2phy")[0][1], json::parse("[15, 13]"));
  EXPECT_EQ(out.at("log2phy")[0][0], json::parse("[12, -1]"));
}

TEST_F(OpCli, EplbDivisibilityRulesAreBadInputNamingTheField) {
  const std::string base =
      R"({"weight": [[1, 2, 3, 4, 5, 6, 7, 8]], "num_replicas": 8, "num_groups": 4,
                               "num_nodes": 2, "num_gpus": 4})";
  auto with = [&](const std::string& key, int v) {
    json j = json::parse(base);
    j[key] = v;
    return j.dump();
  };
  ASSERT_EQ(runOp("eplb", base).exitCode, 0);
  expectBadInput(runOp("eplb", with("num_groups", 3)), "num_groups", "divisible by num_groups");
  expectBadInput(runOp("eplb", with("num_gpus", 3)), "num_gpus", "divisible by num_nodes");
  expectBadInput(runOp("eplb", with("num_replicas", 10)), "num_replicas", "divisible by num_gpus");
  expectBadInput(runOp("eplb", with("num_replicas", 4)), "num_replicas",
                 ">= the number of logical experts");
  json ragged = json::parse(base);
  ragged["weight"].push_back({1, 2});
  expectBadInput(runOp("eplb", ragged.dump()), "weight[1]", "same number of logical experts");
  json negative = json::parse(base);
  negative["weight"][0][3] = -1;
  expectBadInput(runOp("eplb", negative.dump()), "weight[0][3]", ">= 0");
  expectBadInput(
      runOp("eplb", R"({"weight": [[1]], "num_replicas": 1, "num_groups": 1, "num_nodes": 1})"),
      "num_gpus", "");
}

// ---- Input compatibility with the real operator (aclnnMoeUpdateExpert) ----------------------

TEST_F(OpCli, RealOpBalanceMode1IgnoresWorldSizeAndRank) {
  // The real tiling reads world_size and local_rank_id only in balance_mode 0.
  json j = json::parse(kUpdateExpertCase);
  j["balance_mode"] = 1;
  j["world_size"] = 1;
  j["local_rank_id"] = 7;
  j["eplb_table"] = json::parse("[[2, 0, 1], [1, 2, -1], [1, 3, -1]]");
  const auto r = runOp("update-expert", j.dump());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // By token: token 0 takes expert 0's first instance, token 1 its second.
  EXPECT_EQ(json::parse(r.out).at("balanced_expert_ids"), json::parse("[[0, 2], [3, 1]]"));
  // In balance_mode 0 the same world_size is the real operator's 561002.
  j["balance_mode"] = 0;
  expectBadInput(runOp("update-expert", j.dump()), "world_size", "[561002]");
}

TEST_F(OpCli, RealOpThresholdMayBeOneByK) {
  json j = json::parse(kUpdateExpertCase);
  j["expert_scales"] = json::parse("[[0.9, 0.1], [0.6, 0.4]]");
  j["pruning_threshold"] = json::parse("[[0.2, 0.2]]");
  const auto a = runOp("update-expert", j.dump());
  j["pruning_threshold"] = json::parse("[0.2, 0.2]");
  const auto b = runOp("update-expert", j.dump());
  ASSERT_EQ(a.exitCode, 0) << a.err;
  ASSERT_EQ(b.exitCode, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(json::parse(a.out).at("balanced_active_mask"),
            json::parse("[[true, false], [true, true]]"));
}

TEST_F(OpCli, RealOpUnorderedMaskIsAWarningAndStrictRefusesIt) {
  json j = json::parse(kUpdateExpertCase);
  j["expert_scales"] = json::parse("[[0.9, 0.1], [0.6, 0.4]]");
  j["pruning_threshold"] = json::parse("[0.2, 0.2]");
  j["active_mask"] = json::parse("[false, true]");
  const auto r = runOp("update-expert", j.dump());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("warning: active_mask[1]: "), std::string::npos) << r.err;
  // What the real kernel computes: each token by its own flag.
  EXPECT_EQ(json::parse(r.out).at("balanced_active_mask"),
            json::parse("[[false, false], [true, true]]"));
  const std::string file = writeCase("mask.json", j.dump());
  expectBadInput(run("op update-expert --strict --input " + quoted(file)), "active_mask[1]",
                 "--strict");
}

TEST_F(OpCli, RealOpTableOfRepeatedRankIdsIsAWarning) {
  // op-plugin's golden test fills the table with rank ids; the real op copies them.
  const std::string c = R"({
    "expert_ids": [[0, 1], [1, 2], [2, 0]],
    "eplb_table": [[2, 0, 1], [2, 1, 0], [1, 1, 1]],
    "local_rank_id": 1, "world_size": 2, "balance_mode": 0
  })";
  const auto r = runOp("update-expert", c);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("warning: eplb_table"), std::string::npos) << r.err;
  const json out = json::parse(r.out);
  // Rank 1 of 2, two instances: ceil(2/2) = 1 rank per instance, place 1/1+1 = 2.
  EXPECT_EQ(out.at("balanced_expert_ids"), json::parse("[[1, 0], [0, 1], [1, 1]]"));
  EXPECT_FALSE(out.contains("place_per_rank")) << "no placement for a table the pipeline refuses";
  expectBadInput(run("op update-expert --strict --input " + quoted(writeCase("t.json", c))),
                 "eplb_table", "--strict");
}

TEST_F(OpCli, RealOpDtypes) {
  json j = json::parse(kUpdateExpertCase);
  j["expert_ids"] = json::parse(R"({"dtype": "int64", "data": [[0, 1], [2, 0]]})");
  const auto a = runOp("update-expert", j.dump());
  ASSERT_EQ(a.exitCode, 0) << a.err;
  EXPECT_EQ(json::parse(a.out).at("balanced_expert_ids"), json::parse("[[1, 2], [3, 1]]"));
  // bf16 scales are rounded to bf16 first: 0.2999 -> 0.30078125 and 0.7 -> 0.69921875 sum
  // to 1, so the second slot clears 0.3 * sum; in fp32 it does not (0.2999 < 0.3 * 0.9999).
  j["expert_scales"] = json::parse(R"({"dtype": "bfloat16", "data": [[0.7, 0.2999], [0.5, 0.5]]})");
  j["pruning_threshold"] = json::parse("[0.3, 0.3]");
  const auto b = runOp("update-expert", j.dump());
  ASSERT_EQ(b.exitCode, 0) << b.err;
  EXPECT_EQ(json::parse(b.out).at("balanced_active_mask"),
            json::parse("[[true, true], [true, true]]"));
  j["expert_scales"] = json::parse("[[0.7, 0.2999], [0.5, 0.5]]");
  const auto f = runOp("update-expert", j.dump());
  ASSERT_EQ(f.exitCode, 0) << f.err;
  EXPECT_EQ(json::parse(f.out).at("balanced_active_mask"),
            json::parse("[[true, false], [true, true]]"));
  j["expert_scales"] = json::parse(R"({"dtype": "float16", "data": [[0.7, 0.2999], [0.5, 0.5]]})");
  EXPECT_EQ(runOp("update-expert", j.dump()).exitCode, 0);
  j["expert_scales"] = json::parse(R"({"dtype": "float64", "data": [[0.7, 0.3], [0.5, 0.5]]})");
  expectBadInput(runOp("update-expert", j.dump()), "expert_scales.dtype", "[161002]");
  j.erase("expert_scales");
  expectBadInput(runOp("update-expert", j.dump()), "expert_scales", "[161001]");
}

// ---- dispatch and combine on explicit inputs ----------------------------------------------

TEST_F(OpCli, ExampleDispatchCaseRoutesEveryKeptSlotOnce) {
  const auto r = run("op dispatch --input " + quoted(MOE_SOURCE_DIR "/examples/op/dispatch.json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json out = json::parse(r.out).at("ranks");
  ASSERT_EQ(out.size(), 2u);
  // Rank 0 holds instance 0: rows by source rank, then token.
  EXPECT_EQ(out[0].at("expand_idx"), json::parse("[[0,0,0],[0,1,1],[1,0,1],[1,1,0]]"));
  EXPECT_EQ(out[0].at("expand_x"), json::parse("[[1.0,2.0],[3.0,4.0],[5.0,6.0],[7.0,8.0]]"));
  EXPECT_EQ(out[0].at("expand_scales"), json::parse("[0.75,0.5,0.375,1.0]"));
  EXPECT_EQ(out[0].at("ep_recv_counts"), json::parse("[[2,2]]"));
  // Rank 1: rank 1's token 1, slot 1 is masked off, so it is not sent.
  EXPECT_EQ(out[1].at("expand_idx"), json::parse("[[0,0,1],[0,1,0],[1,0,0]]"));
  EXPECT_EQ(out[1].at("expert_token_nums"), json::parse("[3]"));
  EXPECT_EQ(out[1].at("ep_recv_counts"), json::parse("[[2,1]]"));
}

TEST_F(OpCli, CombineOfDispatchWithIdentityExpertsGivesXBack) {
  // Each token's kept weights sum to 1, so combine(dispatch(x)) with y = x is x.
  const auto d = run("op dispatch --input " + quoted(MOE_SOURCE_DIR "/examples/op/dispatch.json"));
  ASSERT_EQ(d.exitCode, 0) << d.err;
  std::ifstream in(MOE_SOURCE_DIR "/examples/op/dispatch.json");
  const json cas = json::parse(in);
  json c = {{"ranks", json::array()}};
  const json dispatched = json::parse(d.out);
  for (std::size_t r = 0; r < 2; ++r) {
    const json& o = dispatched.at("ranks")[r];
    c["ranks"].push_back({{"expand_x", o.at("expand_x")},
                          {"expand_idx", o.at("expand_idx")},
                          {"expert_scales", cas.at("ranks")[r].at("expert_scales")}});
  }
  const auto r = runOp("combine", c.dump());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json out = json::parse(r.out).at("ranks");
  EXPECT_EQ(out[0].at("x"), cas.at("ranks")[0].at("x"));
  EXPECT_EQ(out[1].at("x"), cas.at("ranks")[1].at("x"));
}

TEST_F(OpCli, ExampleCombineCaseSumsInKOrder) {
  const auto r = run("op combine --input " + quoted(MOE_SOURCE_DIR "/examples/op/combine.json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json out = json::parse(r.out).at("ranks");
  // Rank 0, token 0: 0.75 * [2, 4] + 0.25 * [1, 2] = [1.75, 3.5].
  EXPECT_EQ(out[0].at("x")[0], json::parse("[1.75, 3.5]"));
  // Rank 1, token 1: slot 1 was not sent, 1.0 * [14, 16].
  EXPECT_EQ(out[1].at("x")[1], json::parse("[14.0, 16.0]"));
}

TEST_F(OpCli, DispatchAndCombineRefuseBadIndicesByPath) {
  expectBadInput(runOp("dispatch", R"({"local_expert_num": 1, "ranks": [
                   {"x": [[1.0]], "expert_ids": [[1]], "expert_scales": [[1.0]]}]})"),
                 "ranks[0].expert_ids[0][0]", "[0, 1)");
  expectBadInput(runOp("dispatch", R"({"local_expert_num": 1, "ranks": [
                   {"x": [[1.0]], "expert_ids": [[0]], "expert_scales": [[1.0]]},
                   {"x": [[1.0, 2.0]], "expert_ids": [[0]], "expert_scales": [[1.0]]}]})"),
                 "ranks[1].x", "BS x H");
  expectBadInput(runOp("combine", R"({"ranks": [{"expand_x": [[1.0], [2.0]],
                   "expand_idx": [[0, 0, 0], [0, 0, 0]], "expert_scales": [[1.0]]}]})"),
                 "ranks[0].expand_idx[1]", "more than one row");
  expectBadInput(runOp("combine", R"({"ranks": [{"expand_x": [[1.0]],
                   "expand_idx": [[0, 3, 0]], "expert_scales": [[1.0]]}]})"),
                 "ranks[0].expand_idx[0]", "source token");
}

TEST_F(OpCli, RealOpExampleCasesRunAndStrictRefusesOnlyTheWarnedOnes) {
  // examples/op/real-op: one case per input the real operator accepts and we used to refuse.
  const std::map<std::string, std::string> warnedField{
      {"mode1-world-size-1.json", ""},
      {"threshold-1xK.json", ""},
      {"unordered-active-mask.json", "active_mask[2]"},
      {"table-of-rank-ids.json", "eplb_table"},
      {"int64-ids-bf16-scales.json", ""}};
  for (const auto& [file, field] : warnedField) {
    const std::string path = quoted(std::string(MOE_SOURCE_DIR "/examples/op/real-op/") + file);
    const auto r = run("op update-expert --input " + path);
    EXPECT_EQ(r.exitCode, 0) << file << ": " << r.err;
    const auto s = run("op update-expert --strict --input " + path);
    if (field.empty()) {
      EXPECT_TRUE(r.err.empty()) << file << ": " << r.err;
      EXPECT_EQ(s.exitCode, 0) << file << ": " << s.err;
    } else {
      EXPECT_NE(r.err.find("warning: " + field), std::string::npos) << file << ": " << r.err;
      expectBadInput(s, field, "refused by --strict");
    }
  }
}
