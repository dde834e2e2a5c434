#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/reference/layout.h"
#include "core/util/error.h"

using moe::InputError;
using moe::LayoutArgs;
using moe::layoutReference;
using moe::validateLayout;

namespace {

// 5 tokens, 8 experts on 4 ranks (2 experts per rank), 2 ranks per server (2 servers).
LayoutArgs exampleArgs() {
  LayoutArgs a;
  a.numTokens = 5;
  a.numTopk = 2;
  a.topkIdx = {0, 3,   // ranks 0 and 1, server 0
               1, 2,   // ranks 0 and 1, server 0
               7, -1,  // rank 3, server 1; -1 is skipped
               4, 5,   // both on rank 2: counted once for the rank
               6, 6};  // the same expert twice: rank 3 once, expert 6 twice
  a.numRanks = 4;
  a.numExperts = 8;
  a.ranksPerServer = 2;
  return a;
}

void expectRejected(const LayoutArgs& a, const std::string& path, const std::string& fragment) {
  try {
    validateLayout(a);
    ADD_FAILURE() << "expected InputError at " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(e.rule().find(fragment), std::string::npos)
        << "rule \"" << e.rule() << "\" lacks \"" << fragment << "\"";
  }
}

}  // namespace

TEST(LayoutReference, HandWorkedExample) {
  const auto r = layoutReference(exampleArgs());
  EXPECT_EQ(r.numTokensPerRank, (std::vector<int32_t>{2, 2, 1, 2}));
  EXPECT_EQ(r.numTokensPerRdmaRank, (std::vector<int32_t>{2, 3}));
  // Per-expert counts are per occurrence, as in DeepEP: expert 6 appears twice in token 4.
  EXPECT_EQ(r.numTokensPerExpert, (std::vector<int32_t>{1, 1, 1, 1, 1, 1, 2, 1}));
  EXPECT_EQ(r.isTokenInRank, (std::vector<uint8_t>{1, 1, 0, 0,  //
                                                   1, 1, 0, 0,  //
                                                   0, 0, 0, 1,  //
                                                   0, 0, 1, 0,  //
                                                   0, 0, 0, 1}));
}

TEST(LayoutReference, OneServerGivesOneRdmaEntryCountingTokensThatGoAnywhere) {
  auto a = exampleArgs();
  a.ranksPerServer = 8;  // 4 ranks fit on one server
  a.topkIdx[4] = -1;     // token 2 now has no expert at all
  const auto r = layoutReference(a);
  EXPECT_EQ(r.numTokensPerRdmaRank, (std::vector<int32_t>{4}));
  a.ranksPerServer = 4;  // exactly one full server
  EXPECT_EQ(layoutReference(a).numTokensPerRdmaRank, (std::vector<int32_t>{4}));
}

TEST(LayoutReference, AllNegativeTokenGoesNowhere) {
  LayoutArgs a;
  a.numTokens = 2;
  a.numTopk = 3;
  a.topkIdx = {-1, -1, -5, 2, -1, 2};
  a.numRanks = 2;
  a.numExperts = 4;
  a.ranksPerServer = 8;
  const auto r = layoutReference(a);
  EXPECT_EQ(r.isTokenInRank, (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(r.numTokensPerRank, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(r.numTokensPerRdmaRank, (std::vector<int32_t>{1}));
  EXPECT_EQ(r.numTokensPerExpert, (std::vector<int32_t>{0, 0, 2, 0}));
}

TEST(LayoutReference, NoTokensGiveZeroCounts) {
  LayoutArgs a;
  a.numRanks = 16;
  a.numExperts = 32;
  a.ranksPerServer = 8;
  const auto r = layoutReference(a);
  EXPECT_EQ(r.numTokensPerRank, std::vector<int32_t>(16, 0));
  EXPECT_EQ(r.numTokensPerRdmaRank, std::vector<int32_t>(2, 0));
  EXPECT_EQ(r.numTokensPerExpert, std::vector<int32_t>(32, 0));
  EXPECT_TRUE(r.isTokenInRank.empty());
}

TEST(LayoutRandomized, CountsAgreeWithTheMembershipMatrix) {
  std::mt19937 rng(3003);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 200; ++iter) {
    SCOPED_TRACE("case " + std::to_string(iter));
    LayoutArgs a;
    a.ranksPerServer = 1 << uni(0, 3);  // 1, 2, 4, 8
    const int servers = uni(1, 4);
    a.numRanks = uni(0, 1) ? a.ranksPerServer * servers : uni(1, a.ranksPerServer);
    a.numExperts = a.numRanks * uni(1, 6);
    a.numTokens = uni(0, 80);
    a.numTopk = uni(1, 8);
    // Ids from a small pool so that duplicates within a token are common; -1/-3 are skips.
    for (int i = 0; i < a.numTokens * a.numTopk; ++i)
      a.topkIdx.push_back(uni(0, 4) == 0 ? -uni(1, 3) : uni(0, a.numExperts - 1));

    const auto r = layoutReference(a);
    const int R = a.numRanks;
    const int S = moe::layoutServers(R, a.ranksPerServer);
    const int perRank = a.numExperts / R;
    ASSERT_EQ(r.numTokensPerRank.size(), size_t(R));
    ASSERT_EQ(r.numTokensPerRdmaRank.size(), size_t(S));
    ASSERT_EQ(r.numTokensPerExpert.size(), size_t(a.numExperts));
    ASSERT_EQ(r.isTokenInRank.size(), size_t(a.numTokens) * R);

    std::vector<int32_t> colSum(size_t(R), 0), serverSum(size_t(S), 0);
    int64_t validIds = 0;
    for (int t = 0; t < a.numTokens; ++t) {
      std::vector<bool> anyOnServer(size_t(S), false);
      for (int rk = 0; rk < R; ++rk) {
        const bool in = r.isTokenInRank[size_t(t) * R + rk] != 0;
        // The token is on rank rk iff one of its non-negative ids lives there.
        bool expected = false;
        for (int j = 0; j < a.numTopk; ++j) {
          const int e = a.topkIdx[size_t(t * a.numTopk + j)];
          expected = expected || (e >= 0 && e / perRank == rk);
        }
        EXPECT_EQ(in, expected) << "token " << t << " rank " << rk;
        colSum[size_t(rk)] += in;
        if (in) anyOnServer[size_t(rk / a.ranksPerServer)] = true;
      }
      for (int s = 0; s < S; ++s) serverSum[size_t(s)] += anyOnServer[size_t(s)];
      for (int j = 0; j < a.numTopk; ++j) validIds += a.topkIdx[size_t(t * a.numTopk + j)] >= 0;
    }
    EXPECT_EQ(r.numTokensPerRank, colSum);
    EXPECT_EQ(r.numTokensPerRdmaRank, serverSum);
    int64_t expertSum = 0;
    for (int32_t c : r.numTokensPerExpert) expertSum += c;
    EXPECT_EQ(expertSum, validIds) << "every non-negative id is counted once for its expert";
    for (int32_t c : r.numTokensPerRank) EXPECT_LE(c, a.numTokens) << "once per token at most";
  }
}

// ---- validation ----

TEST(LayoutValidation, ExampleIsValidAndNegativeIdsAreAllowed) {
  auto a = exampleArgs();
  a.topkIdx[0] = -2147483647 - 1;
  EXPECT_NO_THROW(validateLayout(a));
}

TEST(LayoutValidation, TooManyTokensAreRefused) {
  LayoutArgs a = exampleArgs();
  a.numTokens = 65537;
  expectRejected(a, "topk_idx", "[0, 65536]");
}

TEST(LayoutValidation, TopkOutOfRangeIsRefused) {
  LayoutArgs a = exampleArgs();
  a.numTopk = 65;
  expectRejected(a, "topk_idx", "[0, 64]");
  a.numTopk = -1;
  expectRejected(a, "topk_idx", "[0, 64]");
}

TEST(LayoutValidation, TopkIdxMustHoldTokensTimesTopk) {
  LayoutArgs a = exampleArgs();
  a.topkIdx.pop_back();
  expectRejected(a, "topk_idx", "num_tokens*num_topk = 10");
}

TEST(LayoutValidation, NumRanksOutOfRangeIsRefused) {
  LayoutArgs a = exampleArgs();
  a.numRanks = 0;
  expectRejected(a, "num_ranks", "[1, 1024]");
  a.numRanks = 1025;
  expectRejected(a, "num_ranks", "[1, 1024]");
}

TEST(LayoutValidation, NumExpertsOutOfRangeIsRefused) {
  LayoutArgs a = exampleArgs();
  a.numExperts = 0;
  expectRejected(a, "num_experts", "[1, 4096]");
  a.numExperts = 4100;
  expectRejected(a, "num_experts", "[1, 4096]");
}

TEST(LayoutValidation, NumExpertsMustBeAMultipleOfNumRanks) {
  LayoutArgs a = exampleArgs();
  a.numExperts = 10;
  expectRejected(a, "num_experts", "multiple of num_ranks");
}

TEST(LayoutValidation, RanksPerServerOutOfRangeIsRefused) {
  LayoutArgs a = exampleArgs();
  a.ranksPerServer = 0;
  expectRejected(a, "ranks_per_server", "[1, 1024]");
  a.ranksPerServer = 2000;
  expectRejected(a, "ranks_per_server", "[1, 1024]");
}

TEST(LayoutValidation, SeveralServersMustBeWhole) {
  LayoutArgs a = exampleArgs();
  a.ranksPerServer = 3;  // 4 ranks over servers of 3
  expectRejected(a, "ranks_per_server", "multiple of ranks_per_server");
}

TEST(LayoutValidation, ExpertIdAtOrAboveNumExpertsIsRefusedWithItsCell) {
  LayoutArgs a = exampleArgs();
  a.topkIdx[7] = 8;
  expectRejected(a, "topk_idx[3][1]", "< num_experts (8)");
}

TEST(LayoutValidation, ReferenceRefusesInvalidInput) {
  LayoutArgs a = exampleArgs();
  a.topkIdx[0] = 99;
  EXPECT_THROW(layoutReference(a), InputError);
}
