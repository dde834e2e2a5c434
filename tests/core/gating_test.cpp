#include "core/reference/gating.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "core/util/bf16.h"
#include "core/util/error.h"
#include "core/util/npy.h"

namespace fs = std::filesystem;
using moe::InputError;
using moe::RankGating;
using moe::RoutingKind;
using moe::Scenario;

namespace {

// 2 servers x 8 cards x 128 tokens = 2048 tokens, 64 experts, top-8: the default model shape
// with a small hidden size so the payload stays cheap.
Scenario smallScenario(RoutingKind kind) {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 8;
  s.model.tokensPerRank = 128;
  s.model.hidden = 32;
  s.model.experts = 64;
  s.model.topk = 8;
  s.routing.kind = kind;
  return s;
}

// Tokens (over all ranks) in which each expert appears.
std::vector<int> tokensPerExpert(const std::vector<RankGating>& g, int experts) {
  std::vector<int> count(static_cast<std::size_t>(experts), 0);
  for (const RankGating& r : g) {
    for (std::int32_t id : r.topkIds) ++count[static_cast<std::size_t>(id)];
  }
  return count;
}

template <typename T>
bool sameBytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Checks the router-output contract on every token: K distinct in-range ids, weights positive,
// descending and summing to 1.
void expectValidRouting(const std::vector<RankGating>& g, const Scenario& s) {
  const auto k = static_cast<std::size_t>(s.model.topk);
  ASSERT_EQ(g.size(), static_cast<std::size_t>(s.cluster.ranks()));
  for (std::size_t r = 0; r < g.size(); ++r) {
    ASSERT_EQ(g[r].topkIds.size(), static_cast<std::size_t>(s.model.tokensPerRank) * k);
    ASSERT_EQ(g[r].topkWeights.size(), g[r].topkIds.size());
    for (std::size_t t = 0; t * k < g[r].topkIds.size(); ++t) {
      const std::int32_t* ids = g[r].topkIds.data() + t * k;
      const float* w = g[r].topkWeights.data() + t * k;
      const std::set<std::int32_t> distinct(ids, ids + k);
      ASSERT_EQ(distinct.size(), k) << "rank " << r << " token " << t;
      ASSERT_GE(*distinct.begin(), 0);
      ASSERT_LT(*distinct.rbegin(), s.model.experts);
      double sum = 0;
      for (std::size_t j = 0; j < k; ++j) {
        ASSERT_GT(w[j], 0.0f);
        if (j > 0) {
          ASSERT_LE(w[j], w[j - 1]) << "rank " << r << " token " << t;
        }
        sum += w[j];
      }
      ASSERT_NEAR(sum, 1.0, 1e-5);
    }
  }
}

class GatingTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("moe_gating_") + info->name() + "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// Expects generateGating to reject the scenario with an InputError on `field` whose rule
// mentions `fragment`.
void expectInputError(const Scenario& s, const std::string& field, const std::string& fragment) {
  try {
    moe::generateGating(s);
    FAIL() << "expected InputError on " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), field);
    EXPECT_NE(e.rule().find(fragment), std::string::npos) << e.rule();
  }
}

}  // namespace

TEST(Gating, SameSeedGivesIdenticalBytesAndDifferentSeedDiffers) {
  Scenario s = smallScenario(RoutingKind::PowerLaw);
  const auto a = moe::generateGating(s);
  const auto b = moe::generateGating(s);
  s.seed = 2;
  const auto c = moe::generateGating(s);
  for (std::size_t r = 0; r < a.size(); ++r) {
    EXPECT_TRUE(sameBytes(a[r].x, b[r].x));
    EXPECT_TRUE(sameBytes(a[r].topkIds, b[r].topkIds));
    EXPECT_TRUE(sameBytes(a[r].topkWeights, b[r].topkWeights));
    EXPECT_FALSE(sameBytes(a[r].x, c[r].x)) << "rank " << r;
    EXPECT_FALSE(sameBytes(a[r].topkIds, c[r].topkIds)) << "rank " << r;
  }
}

TEST(Gating, RanksAreIndependentStreamsUnaffectedByClusterSize) {
  Scenario s = smallScenario(RoutingKind::Hotspot);
  const auto big = moe::generateGating(s);
  s.cluster.servers = 1;
  const auto small = moe::generateGating(s);
  ASSERT_EQ(small.size(), 8u);
  for (std::size_t r = 0; r < small.size(); ++r) {
    EXPECT_TRUE(sameBytes(small[r].topkIds, big[r].topkIds));
    EXPECT_TRUE(sameBytes(small[r].x, big[r].x));
  }
  // Different ranks draw different tokens.
  EXPECT_FALSE(sameBytes(big[0].topkIds, big[1].topkIds));
}

TEST(Gating, EveryDistributionYieldsKDistinctIdsAndDescendingWeightsSummingToOne) {
  for (RoutingKind kind : {RoutingKind::Uniform, RoutingKind::PowerLaw, RoutingKind::Hotspot,
                           RoutingKind::GroupLimited}) {
    SCOPED_TRACE(static_cast<int>(kind));
    const Scenario s = smallScenario(kind);
    expectValidRouting(moe::generateGating(s), s);
  }
  // K == E: every token uses every expert.
  Scenario all = smallScenario(RoutingKind::PowerLaw);
  all.model.experts = 8;
  expectValidRouting(moe::generateGating(all), all);
}

TEST(Gating, ExtremePopularityRatiosStillGivePositiveWeights) {
  // alpha 40 over 64 experts spans e^166 in popularity: exp() of the score gap underflows
  // fp32, yet every routed slot must keep a positive weight.
  Scenario s = smallScenario(RoutingKind::PowerLaw);
  s.routing.alpha = 40;
  expectValidRouting(moe::generateGating(s), s);
}

TEST(Gating, PayloadIsBf16OfStandardNormalAndEmptyWhenPayloadNone) {
  Scenario s = smallScenario(RoutingKind::Uniform);
  const auto full = moe::generateGating(s);
  double sum = 0, sq = 0;
  std::size_t n = 0;
  for (const RankGating& r : full) {
    ASSERT_EQ(r.x.size(), static_cast<std::size_t>(s.model.tokensPerRank * s.model.hidden));
    for (std::uint16_t v : r.x) {
      const double f = moe::bf16ToFloat(v);
      ASSERT_TRUE(std::isfinite(f));
      sum += f;
      sq += f * f;
      ++n;
    }
  }
  // 65536 samples: the mean's standard error is 0.004 and the variance's about 0.006.
  EXPECT_NEAR(sum / static_cast<double>(n), 0.0, 0.03);
  EXPECT_NEAR(sq / static_cast<double>(n), 1.0, 0.05);

  s.payload = moe::PayloadMode::None;
  const auto none = moe::generateGating(s);
  for (std::size_t r = 0; r < none.size(); ++r) {
    EXPECT_TRUE(none[r].x.empty());
    // The routing must not depend on whether x was generated.
    EXPECT_TRUE(sameBytes(none[r].topkIds, full[r].topkIds));
    EXPECT_TRUE(sameBytes(none[r].topkWeights, full[r].topkWeights));
  }
}

TEST(Gating, PowerLawMostPopularExpertGetsFarMoreTokensThanTheMedian) {
  Scenario s = smallScenario(RoutingKind::PowerLaw);
  s.routing.alpha = 1.2;
  std::vector<int> count = tokensPerExpert(moe::generateGating(s), s.model.experts);
  std::sort(count.begin(), count.end());
  const int top = count.back(), median = count[count.size() / 2];
  // With p ∝ (i+1)^-1.2 the top expert is in almost every token (2048) and the median one
  // in roughly 5%: a factor far above 4.
  EXPECT_GT(top, 4 * median) << "top " << top << " median " << median;
  EXPECT_GT(top, 2048 * 9 / 10);
}

TEST(Gating, PowerLawWithAlphaZeroIsUniformWithinSixSigma) {
  Scenario s = smallScenario(RoutingKind::PowerLaw);
  s.routing.alpha = 0;
  const std::vector<int> count = tokensPerExpert(moe::generateGating(s), s.model.experts);
  // Under equal popularity each token includes a given expert with probability K/E = 1/8,
  // independently per token, so its count is Binomial(2048, 1/8): mean 256, sigma 15.
  const double tokens = 2048, q = 8.0 / 64.0;
  const double mean = tokens * q, sigma = std::sqrt(tokens * q * (1 - q));
  for (int c : count) EXPECT_NEAR(c, mean, 6 * sigma);
}

TEST(Gating, HotspotExpertsAppearInAtLeast90PercentOfTokens) {
  Scenario s = smallScenario(RoutingKind::Hotspot);
  s.routing.hotspotFraction = 0.5;
  s.routing.hotspotExperts = 2;
  const std::vector<double> p = moe::expertPopularity(s);
  std::vector<int> hot;
  for (int e = 0; e < s.model.experts; ++e) {
    if (p[static_cast<std::size_t>(e)] == 0.25) hot.push_back(e);
  }
  ASSERT_EQ(hot.size(), 2u) << "two experts should hold 0.25 of the mass each";

  const std::vector<int> count = tokensPerExpert(moe::generateGating(s), s.model.experts);
  // Sampling without replacement caps an expert at one slot per token, so "50% of the mass"
  // means "in nearly every token": the chance a 0.25 expert is missed by 8 draws is ~6%.
  for (int e : hot) EXPECT_GE(count[static_cast<std::size_t>(e)], 2048 * 9 / 10);
  const int coldMax = [&] {
    int m = 0;
    for (int e = 0; e < s.model.experts; ++e) {
      if (std::find(hot.begin(), hot.end(), e) == hot.end()) {
        m = std::max(m, count[static_cast<std::size_t>(e)]);
      }
    }
    return m;
  }();
  EXPECT_GT(count[static_cast<std::size_t>(hot[0])], 3 * coldMax);
}

TEST(Gating, GroupLimitedTokensSpanAtMostTopkGroups) {
  Scenario s = smallScenario(RoutingKind::GroupLimited);
  s.routing.groups = 8;
  s.routing.topkGroups = 2;
  const int perGroup = s.model.experts / s.routing.groups;
  auto maxGroupsSpanned = [&](const std::vector<RankGating>& g) {
    std::size_t widest = 0;
    for (const RankGating& r : g) {
      for (std::size_t t = 0; t < r.topkIds.size(); t += 8) {
        std::set<int> groups;
        for (std::size_t j = 0; j < 8; ++j) groups.insert(r.topkIds[t + j] / perGroup);
        widest = std::max(widest, groups.size());
      }
    }
    return widest;
  };
  EXPECT_LE(maxGroupsSpanned(moe::generateGating(s)), 2u);
  // The limit is what constrains the tokens: unlimited routing spreads them wider.
  s.routing.topkGroups = 8;
  EXPECT_GT(maxGroupsSpanned(moe::generateGating(s)), 2u);
}

TEST(Gating, InvalidRoutingParametersNameTheirField) {
  Scenario s = smallScenario(RoutingKind::GroupLimited);
  s.routing.groups = 7;
  expectInputError(s, "routing.groups", "divide");
  s.routing.groups = 16;
  s.routing.topkGroups = 1;  // 1 group x 4 experts < K = 8
  expectInputError(s, "routing.topk_groups", "model.topk");

  Scenario h = smallScenario(RoutingKind::Hotspot);
  h.routing.hotspotFraction = 1.0;
  expectInputError(h, "routing.hotspot_fraction", "(0, 1)");
  h.routing.hotspotFraction = 0.5;
  h.routing.hotspotExperts = 65;
  expectInputError(h, "routing.hotspot_experts", "[1, model.experts]");

  Scenario p = smallScenario(RoutingKind::PowerLaw);
  p.routing.alpha = -1;
  expectInputError(p, "routing.alpha", ">= 0");
  p.routing.alpha = 1;
  p.model.topk = 65;
  expectInputError(p, "model.topk", "[1, model.experts]");
}

TEST(Gating, ExpectedExpertLoadSumsToOneAndFavoursHotExperts) {
  Scenario s = smallScenario(RoutingKind::Hotspot);
  const std::vector<double> load = moe::expectedExpertLoad(s);
  const std::vector<double> p = moe::expertPopularity(s);
  ASSERT_EQ(load.size(), 64u);
  EXPECT_NEAR(std::accumulate(load.begin(), load.end(), 0.0), 1.0, 1e-9);
  for (std::size_t e = 0; e < 64; ++e) {
    if (p[e] == 0.25) {
      // A hot expert is in ~94% of tokens, i.e. ~0.94/8 of the slots, far above 1/64.
      EXPECT_GT(load[e], 0.1);
    } else {
      EXPECT_LT(load[e], 0.02);
    }
  }

  // Equal popularity is exact.
  for (RoutingKind kind : {RoutingKind::Uniform, RoutingKind::GroupLimited}) {
    for (double v : moe::expectedExpertLoad(smallScenario(kind))) EXPECT_DOUBLE_EQ(v, 1.0 / 64);
  }
}

TEST(Gating, ExpectedExpertLoadMatchesTheGeneratorsFrequencies) {
  Scenario s = smallScenario(RoutingKind::PowerLaw);
  s.cluster.servers = 4;  // 4096 tokens
  const std::vector<double> load = moe::expectedExpertLoad(s);
  const std::vector<int> count = tokensPerExpert(moe::generateGating(s), s.model.experts);
  const double slots = 4096.0 * 8;
  for (std::size_t e = 0; e < load.size(); ++e) {
    // Binomial error of the empirical share plus the 20000-token estimate's own error,
    // with a 6-sigma margin.
    const double share = load[e];
    const double sigma = std::sqrt(share * (1 - share) * (1 / slots + 1 / (20000.0 * 8)));
    EXPECT_NEAR(count[e] / slots, share, 6 * sigma + 1e-4) << "expert " << e;
  }
}

TEST_F(GatingTrace, TraceCsvRoundTripsWithCommentsBlankLinesAndRefusesAShortTrace) {
  Scenario s = smallScenario(RoutingKind::Trace);
  s.cluster.servers = 1;
  s.cluster.cardsPerServer = 2;
  s.model.tokensPerRank = 3;
  s.model.experts = 8;
  s.model.topk = 2;
  // 4 rows for 6 tokens: refused, never repeated (the run would route tokens the file does
  // not describe).
  const std::string head =
      "# expert ids, one token per line\n"
      "0,1\n"
      "\n"
      " 7 , 3\r\n"
      "5,4\n"
      "# trailing comment\n"
      "2,6\n";
  s.routing.traceFile = write("short.csv", head);
  expectInputError(s, "routing.trace_file", "holds 4 token rows, fewer than the run's 6 tokens");
  // 7 rows for 6 tokens: token t takes row t, the surplus row is unused.
  s.routing.traceFile = write("t.csv", head + "0,2\n1,3\n4,5\n");
  const std::vector<std::vector<int>> rows = {{0, 1}, {7, 3}, {5, 4}, {2, 6}, {0, 2}, {1, 3}};
  const auto g = moe::generateGating(s);
  expectValidRouting(g, s);
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 3; ++i) {
      const auto& want = rows[static_cast<std::size_t>(r * 3 + i)];
      const auto at = static_cast<std::size_t>(i * 2);
      EXPECT_EQ(g[static_cast<std::size_t>(r)].topkIds[at], want[0]);
      EXPECT_EQ(g[static_cast<std::size_t>(r)].topkIds[at + 1], want[1]);
    }
  }
  // Expected load counts the 6 rows the scenario uses: ids 0, 1, 2 and 3 appear twice in
  // the 12 slots, 4, 5, 6 and 7 once.
  const std::vector<double> load = moe::expectedExpertLoad(s);
  for (int e : {0, 1, 2, 3}) EXPECT_DOUBLE_EQ(load[static_cast<std::size_t>(e)], 2.0 / 12);
  for (int e : {4, 5, 6, 7}) EXPECT_DOUBLE_EQ(load[static_cast<std::size_t>(e)], 1.0 / 12);
  EXPECT_NEAR(std::accumulate(load.begin(), load.end(), 0.0), 1.0, 1e-12);
}

TEST_F(GatingTrace, TraceNpyRoundTripsInBothShapesAndDtypes) {
  Scenario s = smallScenario(RoutingKind::Trace);
  s.cluster.servers = 1;
  s.cluster.cardsPerServer = 2;
  s.model.tokensPerRank = 2;
  s.model.experts = 16;
  s.model.topk = 3;
  const std::vector<std::int32_t> ids = {0, 1, 2, 15, 14, 13, 3, 9, 4, 8, 7, 6};

  s.routing.traceFile = path("flat.npy");
  moe::writeNpy(s.routing.traceFile, moe::makeNpy<std::int32_t>({4, 3}, ids));
  const auto flat = moe::generateGating(s);
  expectValidRouting(flat, s);
  EXPECT_EQ(flat[0].topkIds, std::vector<std::int32_t>(ids.begin(), ids.begin() + 6));
  EXPECT_EQ(flat[1].topkIds, std::vector<std::int32_t>(ids.begin() + 6, ids.end()));

  s.routing.traceFile = path("per_rank.npy");
  const std::vector<std::int64_t> ids64(ids.begin(), ids.end());
  moe::writeNpy(s.routing.traceFile, moe::makeNpy<std::int64_t>({2, 2, 3}, ids64));
  const auto perRank = moe::generateGating(s);
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(perRank[r].topkIds, flat[r].topkIds);
    // Same seed, same weights: the weight stream does not depend on the file format.
    EXPECT_TRUE(sameBytes(perRank[r].topkWeights, flat[r].topkWeights));
  }
}

TEST_F(GatingTrace, EveryTraceProblemIsAnInputErrorOnRoutingTraceFile) {
  Scenario s = smallScenario(RoutingKind::Trace);
  s.model.experts = 8;
  s.model.topk = 2;
  const std::string field = "routing.trace_file";

  s.routing.traceFile = "";
  expectInputError(s, field, "empty");
  s.routing.traceFile = path("missing.csv");
  expectInputError(s, field, "no such file");
  s.routing.traceFile = write("wide.csv", "0,1\n2,3,4\n");
  expectInputError(s, field, "line 2: has 3 ids");
  s.routing.traceFile = write("range.csv", "# c\n0,8\n");
  expectInputError(s, field, "line 2: expert id 8 is outside [0, 8)");
  s.routing.traceFile = write("negative.csv", "-1,2\n");
  expectInputError(s, field, "line 1: expert id -1");
  s.routing.traceFile = write("dup.csv", "1,2\n\n3,3\n");
  expectInputError(s, field, "line 3: expert id 3 appears twice");
  s.routing.traceFile = write("text.csv", "1,2\n1,x\n");
  expectInputError(s, field, "line 2, column 3: 'x' is not an integer (line: \"1,x\")");
  s.routing.traceFile = write("float.csv", "1,2.5\n");
  expectInputError(s, field, "line 1, column 3: '2.5' is not an integer");
  s.routing.traceFile = write("blank_field.csv", "1,\n");
  expectInputError(s, field, "line 1, column 3: '' is not an integer");
  s.routing.traceFile = write("only_comments.csv", "# nothing\n\n");
  expectInputError(s, field, "no token rows");

  s.routing.traceFile = path("float.npy");
  moe::writeNpy(s.routing.traceFile, moe::makeNpy<float>({1, 2}, {0, 1}));
  expectInputError(s, field, "not int32 or int64");
  s.routing.traceFile = path("width.npy");
  moe::writeNpy(s.routing.traceFile, moe::makeNpy<std::int32_t>({1, 3}, {0, 1, 2}));
  expectInputError(s, field, "rows have 3 ids");
  s.routing.traceFile = path("ranks.npy");
  moe::writeNpy(s.routing.traceFile, moe::makeNpy<std::int32_t>({3, 1, 2}, {0, 1, 0, 1, 0, 1}));
  expectInputError(s, field, "shape must be");
  s.routing.traceFile = path("dup.npy");
  moe::writeNpy(s.routing.traceFile, moe::makeNpy<std::int64_t>({2, 2}, {0, 1, 5, 5}));
  expectInputError(s, field, "row 1: expert id 5 appears twice");
  s.routing.traceFile = path("big.npy");
  moe::writeNpy(s.routing.traceFile, moe::makeNpy<std::int64_t>({1, 2}, {0, 1ll << 40}));
  expectInputError(s, field, "is outside [0, 8)");
  s.routing.traceFile = write("corrupt.npy", std::string("\x93NUMPY\x01\x00\xff\x00", 10));
  expectInputError(s, field, "truncated");
}
