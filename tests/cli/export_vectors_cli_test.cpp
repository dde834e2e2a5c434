// `moe-sim export-vectors` as a user runs it: the manifest, the .npy files it lists (read
// back with the core's reader, which trusts nothing), the digest, the encodings and errors.

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <string>

#include "core/util/npy.h"
#include "tests/cli/sim_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Result = moe::clitest::SimResult;

class ExportVectorsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("moe_export_cli_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result run(const std::string& args) { return moe::clitest::runMoeSim(args, dir_); }

  // Two servers of two cards (the hierarchical path), pruning, a shared expert.
  std::string smallScenario(const std::function<void(json&)>& edit = {}) {
    std::ifstream in(std::string(MOE_SOURCE_DIR) + "/resources/scenarios/default.json");
    json j = json::parse(in);
    j["name"] = "export-test";
    j["cluster"]["servers"] = 2;
    j["cluster"]["cards_per_server"] = 2;
    j["hardware"]["overrides"]["cards_per_server"] = 2;
    j["model"]["tokens_per_rank"] = 16;
    j["model"]["hidden"] = 128;
    j["model"]["experts"] = 8;
    j["model"]["topk"] = 4;
    j["eplb"]["pruning_threshold"] = {0.0, 0.05, 0.1, 0.2};
    j["eplb"]["active_tokens"] = 12;
    j["rings"]["chunk_bytes"] = 4096;
    if (edit) edit(j);
    const fs::path p = dir_ / "scenario.json";
    std::ofstream(p) << j.dump(2);
    return p.string();
  }

  json manifest(const fs::path& out) {
    std::ifstream in(out / "manifest.json");
    return json::parse(in);
  }

  fs::path dir_;
};

std::string digestOf(const std::string& out) {
  const auto at = out.find("digest: ");
  return at == std::string::npos ? "" : out.substr(at + 8, 16);
}

TEST_F(ExportVectorsCli, ManifestListsEveryFileWithItsDtypeAndShape) {
  const std::string sc = smallScenario();
  const Result r = run("export-vectors '" + sc + "' --out '" + (dir_ / "v").string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json m = manifest(dir_ / "v");
  EXPECT_EQ(m.at("scenario"), "export-test");
  EXPECT_EQ(m.at("seed"), 1);
  EXPECT_FALSE(m.at("tool_version").get<std::string>().empty());
  EXPECT_EQ(m.at("encodings").at("counts"), "counts");
  std::map<std::string, int> perOp;
  for (const json& f : m.at("files")) {
    const moe::NpyArray a = moe::readNpy((dir_ / "v" / f.at("file").get<std::string>()).string());
    EXPECT_EQ(a.dtype, f.at("dtype")) << f.dump();
    EXPECT_EQ(a.shape, f.at("shape").get<std::vector<std::size_t>>()) << f.dump();
    ++perOp[f.at("op").get<std::string>() + "/" + f.at("argument").get<std::string>()];
  }
  // Every argument of every operator, once per rank (4 ranks).
  for (const char* key :
       {"moe_update_expert/expert_ids", "moe_update_expert/eplb_table",
        "moe_update_expert/expert_scales", "moe_update_expert/pruning_threshold",
        "moe_update_expert/active_mask", "moe_update_expert/balanced_expert_ids",
        "moe_update_expert/balanced_active_mask", "get_dispatch_layout/topk_idx",
        "get_dispatch_layout/is_token_in_rank", "get_dispatch_layout/num_tokens_per_rdma_rank",
        "moe_distribute_dispatch/x", "moe_distribute_dispatch/expand_x",
        "moe_distribute_dispatch/expand_idx", "moe_distribute_dispatch/expert_token_nums",
        "moe_distribute_dispatch/ep_recv_counts",
        "moe_distribute_dispatch/ep_recv_counts_per_server", "moe_distribute_combine/expand_x",
        "moe_distribute_combine/ep_send_counts", "moe_distribute_combine/x"})
    EXPECT_EQ(perOp[key], 4) << key;
}

// An fp8 dispatch: expand_x is the dequantized row, the wire codes and block scales come
// with it (E4M3 decoded here by hand: sign, 4 exponent bits with bias 7, 3 mantissa bits),
// the run's own verification passes, and the digest is the run's.
TEST_F(ExportVectorsCli, Fp8DispatchWritesTheCodesAndScalesAndTheDequantizedRows) {
  const std::string sc = smallScenario([](json& j) { j["model"]["dispatch_dtype"] = "fp8"; });
  const Result e = run("export-vectors '" + sc + "' --out '" + (dir_ / "v").string() + "'");
  const Result r = run("run --verify '" + sc + "'");
  ASSERT_EQ(e.exitCode, 0) << e.err;
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(digestOf(e.out), digestOf(r.out));
  auto e4m3 = [](std::uint8_t c) {
    const int exp = (c >> 3) & 0xf, man = c & 7;
    const float mag = exp == 0 ? std::ldexp(man / 8.0f, -6) : std::ldexp(1 + man / 8.0f, exp - 7);
    return (c & 0x80) ? -mag : mag;
  };
  const json m = manifest(dir_ / "v");
  int dispatchOps = 0;
  for (const json& op : m.at("operators")) {
    if (op.at("op") != "moe_distribute_dispatch") continue;
    EXPECT_EQ(op.at("attrs").value("dispatch_dtype", ""), "fp8");
    ++dispatchOps;
  }
  EXPECT_EQ(dispatchOps, 4);
  int checkedRows = 0;
  for (int rank = 0; rank < 4; ++rank) {
    const fs::path d = dir_ / "v" / "moe_distribute_dispatch" / ("rank" + std::to_string(rank));
    const auto x = moe::readNpy((d / "expand_x.npy").string());
    const auto q = moe::readNpy((d / "expand_x_fp8.npy").string());
    const auto s = moe::readNpy((d / "expand_x_fp8_scales.npy").string());
    ASSERT_EQ(q.dtype, "|u1");
    ASSERT_EQ(q.shape, x.shape);
    ASSERT_EQ(s.shape, (std::vector<std::size_t>{x.shape[0], 1}));  // H 128: one block
    const auto xv = x.as<std::uint16_t>();
    const auto qv = q.as<std::uint8_t>();
    const auto sv = s.as<float>();
    for (std::size_t row = 0; row < x.shape[0]; ++row, ++checkedRows)
      for (std::size_t h = 0; h < 128; ++h) {
        const float want = e4m3(qv[row * 128 + h]) * sv[row];
        std::uint32_t bits = static_cast<std::uint32_t>(xv[row * 128 + h]) << 16;
        float got;
        std::memcpy(&got, &bits, 4);
        // bf16 holds 8 significant bits, E4M3 x scale at most 4 + the scale's: within 2^-8.
        EXPECT_NEAR(got, want, std::fabs(want) * 0x1p-8f) << "rank " << rank << " row " << row;
      }
  }
  EXPECT_GT(checkedRows, 0);
}

TEST_F(ExportVectorsCli, DigestIsTheRunsDigest) {
  const std::string sc = smallScenario();
  const Result e = run("export-vectors '" + sc + "' --out '" + (dir_ / "v").string() + "'");
  const Result r = run("run '" + sc + "'");
  ASSERT_EQ(e.exitCode, 0) << e.err;
  ASSERT_EQ(r.exitCode, 0) << r.err;
  ASSERT_EQ(digestOf(r.out).size(), 16u);
  EXPECT_EQ(digestOf(e.out), digestOf(r.out));
  EXPECT_EQ(manifest(dir_ / "v").at("digest"), digestOf(r.out));
}

// Without a scenario the export is the built-in vectors scenario: its run digest is the one
// `moe-sim run` prints for resources/scenarios/vectors.json, and both digests it prints
// are the ones the README states (so the README cannot go stale).
TEST_F(ExportVectorsCli, DefaultExportPrintsTheDigestsTheReadmeStates) {
  const Result e = run("export-vectors --out '" + (dir_ / "v").string() + "'");
  ASSERT_EQ(e.exitCode, 0) << e.err;
  const std::string vectors = std::string(MOE_SOURCE_DIR) + "/resources/scenarios/vectors.json";
  const Result r = run("run '" + vectors + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(digestOf(e.out), digestOf(r.out));
  const json m = manifest(dir_ / "v");
  EXPECT_EQ(m.at("scenario"), "vectors");
  EXPECT_EQ(m.at("digest"), digestOf(e.out));
  const std::string contents = m.at("vectors_digest");
  EXPECT_NE(e.out.find("vectors digest: " + contents), std::string::npos) << e.out;
  std::ifstream in(std::string(MOE_SOURCE_DIR) + "/README.md");
  const std::string readme{std::istreambuf_iterator<char>(in), {}};
  EXPECT_NE(readme.find("digest: " + digestOf(e.out) + "\nvectors digest: " + contents),
            std::string::npos)
      << "README.md does not state the default export's digests:\n"
      << e.out;
}

TEST_F(ExportVectorsCli, PrefixSumsFlagWritesTheCumulativeCounts) {
  const std::string sc = smallScenario();
  ASSERT_EQ(run("export-vectors '" + sc + "' --out '" + (dir_ / "c").string() + "'").exitCode, 0);
  ASSERT_EQ(
      run("export-vectors '" + sc + "' --counts prefix-sums --out '" + (dir_ / "p").string() + "'")
          .exitCode,
      0);
  EXPECT_EQ(manifest(dir_ / "p").at("encodings").at("counts"), "prefix-sums");
  for (const char* f : {"moe_distribute_dispatch/rank1/ep_recv_counts.npy",
                        "moe_distribute_dispatch/rank1/expert_token_nums.npy"}) {
    const moe::NpyArray c = moe::readNpy((dir_ / "c" / f).string());
    const moe::NpyArray p = moe::readNpy((dir_ / "p" / f).string());
    ASSERT_EQ(c.dtype, p.dtype);
    if (c.dtype == "<i4") {
      auto v = c.as<std::int32_t>();
      std::partial_sum(v.begin(), v.end(), v.begin());
      EXPECT_EQ(v, p.as<std::int32_t>()) << f;
    } else {
      auto v = c.as<std::int64_t>();
      std::partial_sum(v.begin(), v.end(), v.begin());
      EXPECT_EQ(v, p.as<std::int64_t>()) << f;
    }
  }
}

TEST_F(ExportVectorsCli, SlotsLayoutPointsAtTheReceivedRows) {
  const std::string sc = smallScenario();
  ASSERT_EQ(run("export-vectors '" + sc + "' --out '" + (dir_ / "r").string() + "'").exitCode, 0);
  ASSERT_EQ(
      run("export-vectors '" + sc + "' --expand-idx slots --out '" + (dir_ / "s").string() + "'")
          .exitCode,
      0);
  // Every row listed by the rows layout on rank d appears in exactly one slot of its source.
  const int R = 4, K = 4;
  std::vector<std::vector<std::int32_t>> slots;
  for (int r = 0; r < R; ++r)
    slots.push_back(moe::readNpy((dir_ / "s" / "moe_distribute_dispatch" /
                                  ("rank" + std::to_string(r)) / "expand_idx.npy")
                                     .string())
                        .as<std::int32_t>());
  for (int d = 0; d < R; ++d) {
    const auto rows = moe::readNpy((dir_ / "r" / "moe_distribute_dispatch" /
                                    ("rank" + std::to_string(d)) / "expand_idx.npy")
                                       .string())
                          .as<std::int32_t>();
    for (std::size_t row = 0; row * 3 < rows.size(); ++row)
      EXPECT_EQ(
          slots[std::size_t(rows[row * 3])][std::size_t(rows[row * 3 + 1] * K + rows[row * 3 + 2])],
          std::int32_t(row));
  }
}

TEST_F(ExportVectorsCli, AddRmsNormAndTheFusedWorkloadExportTheirArguments) {
  const std::string sc = smallScenario([](json& j) { j["combine"]["add_rms_norm"] = true; });
  ASSERT_EQ(run("export-vectors '" + sc + "' --out '" + (dir_ / "n").string() + "'").exitCode, 0);
  const fs::path n = dir_ / "n" / "moe_distribute_combine_add_rms_norm" / "rank0";
  for (const char* f : {"residual_x.npy", "gamma.npy", "x.npy", "y.npy", "rstd.npy"})
    EXPECT_TRUE(fs::exists(n / f)) << f;
  EXPECT_EQ(moe::readNpy((n / "rstd.npy").string()).shape, (std::vector<std::size_t>{16, 1}));

  const std::string a2a = smallScenario([](json& j) {
    j["workload"]["kind"] = "alltoall-matmul-rs";
    j["workload"]["m"] = 256;
    j["workload"]["n"] = 128;
    j["workload"]["k"] = 1024;
  });
  const Result r = run("export-vectors '" + a2a + "' --out '" + (dir_ / "a").string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path a = dir_ / "a" / "alltoall_matmul_reduce_scatter" / "rank3";
  EXPECT_EQ(moe::readNpy((a / "input.npy").string()).shape, (std::vector<std::size_t>{32, 1024}));
  EXPECT_EQ(moe::readNpy((a / "weight.npy").string()).shape, (std::vector<std::size_t>{128, 128}));
  EXPECT_EQ(moe::readNpy((a / "output.npy").string()).dtype, "<f2");
}

TEST_F(ExportVectorsCli, UnwritableOutIsBadInputNamingTheOption) {
  const fs::path file = dir_ / "a-file";
  std::ofstream(file) << "x";
  const Result r = run("export-vectors --out '" + (file / "sub").string() + "'");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("error: --out: "), std::string::npos) << r.err;
}

TEST_F(ExportVectorsCli, BadScenarioIsBadInput) {
  const std::string sc = smallScenario([](json& j) { j["model"]["topk"] = 0; });
  const Result r = run("export-vectors '" + sc + "' --out '" + (dir_ / "v").string() + "'");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("model.topk"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "v" / "manifest.json"));
}

// Every regular file under `dir`, relative, but manifest.json itself.
std::set<std::string> filesUnder(const fs::path& dir) {
  std::set<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path() != dir / "manifest.json")
      files.insert(fs::relative(e.path(), dir).string());
  return files;
}

std::set<std::string> manifestFiles(const json& m) {
  std::set<std::string> files;
  for (const json& f : m.at("files")) files.insert(f.at("file").get<std::string>());
  return files;
}

TEST_F(ExportVectorsCli, ManifestListsExactlyTheFilesInTheDirectory) {
  const Result r =
      run("export-vectors '" + smallScenario() + "' --out '" + (dir_ / "v").string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(filesUnder(dir_ / "v"), manifestFiles(manifest(dir_ / "v")));
  // Nothing of the staging directory is left beside the export.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".v."), std::string::npos) << e.path();
}

TEST_F(ExportVectorsCli, ASmallerExportLeavesNoStaleFilesOfALargerOne) {
  const fs::path out = dir_ / "v";
  // Four ranks first, then two: the first export's rank2/rank3 files must go.
  ASSERT_EQ(run("export-vectors '" + smallScenario() + "' --out '" + out.string() + "'").exitCode,
            0);
  ASSERT_TRUE(fs::exists(out / "moe_update_expert" / "rank3" / "expert_ids.npy"));
  const std::string two = smallScenario([](json& j) {
    j["cluster"]["servers"] = 1;
    j["cluster"]["cards_per_server"] = 2;
    j["hardware"]["overrides"]["cards_per_server"] = 2;
  });
  const Result r = run("export-vectors '" + two + "' --out '" + out.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "moe_update_expert" / "rank3"));
  EXPECT_FALSE(fs::exists(out / "moe_update_expert" / "rank2" / "expert_ids.npy"));
  EXPECT_EQ(filesUnder(out), manifestFiles(manifest(out)));
}

TEST_F(ExportVectorsCli, ANonEmptyDirectoryThatIsNoExportIsRefusedUnlessForced) {
  const fs::path out = dir_ / "mine";
  fs::create_directories(out);
  std::ofstream(out / "notes.txt") << "not an export";
  const std::string sc = smallScenario();
  const Result refused = run("export-vectors '" + sc + "' --out '" + out.string() + "'");
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_NE(refused.err.find("error: --out: "), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(out / "notes.txt"));
  EXPECT_FALSE(fs::exists(out / "manifest.json"));

  const Result forced = run("export-vectors '" + sc + "' --out '" + out.string() + "' --force");
  ASSERT_EQ(forced.exitCode, 0) << forced.err;
  EXPECT_FALSE(fs::exists(out / "notes.txt"));
  EXPECT_EQ(filesUnder(out), manifestFiles(manifest(out)));
}

TEST_F(ExportVectorsCli, ARefusedExportLeavesTheEarlierExportWhole) {
  const fs::path out = dir_ / "v";
  ASSERT_EQ(run("export-vectors '" + smallScenario() + "' --out '" + out.string() + "'").exitCode,
            0);
  const std::string before = manifest(out).dump();
  const std::string bad = smallScenario([](json& j) { j["model"]["topk"] = 0; });
  EXPECT_EQ(run("export-vectors '" + bad + "' --out '" + out.string() + "'").exitCode, 2);
  EXPECT_EQ(manifest(out).dump(), before);
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().rfind(".v.", 0), std::string::npos) << e.path();
}

// Every file under `dir` with its bytes.
std::map<std::string, std::string> contentsUnder(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) {
      std::ifstream in(e.path(), std::ios::binary);
      files[fs::relative(e.path(), dir).string()].assign(std::istreambuf_iterator<char>(in), {});
    }
  return files;
}

TEST_F(ExportVectorsCli, TwoConcurrentExportsLeaveOneWholeExport) {
  const std::string a = smallScenario();
  fs::rename(a, dir_ / "a.json");
  const std::string b = smallScenario([](json& j) { j["seed"] = 2; });
  fs::rename(b, dir_ / "b.json");
  const fs::path sa = dir_ / "a.json", sb = dir_ / "b.json";
  ASSERT_EQ(
      run("export-vectors '" + sa.string() + "' --out '" + (dir_ / "A").string() + "'").exitCode,
      0);
  ASSERT_EQ(
      run("export-vectors '" + sb.string() + "' --out '" + (dir_ / "B").string() + "'").exitCode,
      0);
  const std::string sim = MOE_SIM_PATH;
  const std::string target = (dir_ / "C").string();
  const std::string both = "sh -c \"" + sim + " export-vectors '" + sa.string() + "' --out '" +
                           target + "' >/dev/null 2>&1 & " + sim + " export-vectors '" +
                           sb.string() + "' --out '" + target + "' >/dev/null 2>&1 & wait\"";
  ASSERT_EQ(std::system(both.c_str()), 0);
  const auto c = contentsUnder(dir_ / "C");
  EXPECT_TRUE(c == contentsUnder(dir_ / "A") || c == contentsUnder(dir_ / "B"))
      << "the export mixes the two seeds' files";
}

}  // namespace
