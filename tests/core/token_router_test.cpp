#include "core/reference/token_router.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using moe::Rng;
using moe::TokenRouter;

struct Case {
  std::string name;
  std::vector<double> popularity;
  int topk, groups, topkGroups;
};

std::vector<double> uniform(int experts) {
  return std::vector<double>(static_cast<std::size_t>(experts), 1.0 / experts);
}

// Masses (i + 1)^-alpha, scrambled so the popular experts are spread over the groups.
std::vector<double> powerLaw(int experts, double alpha) {
  std::vector<double> p(static_cast<std::size_t>(experts));
  double sum = 0;
  for (int i = 0; i < experts; ++i) sum += std::pow(i + 1.0, -alpha);
  for (int i = 0; i < experts; ++i)
    p[static_cast<std::size_t>((i * 37) % experts)] = std::pow(i + 1.0, -alpha) / sum;
  return p;
}

std::vector<Case> cases() {
  std::vector<Case> c = {
      {"uniform 256, top-8", uniform(256), 8, 1, 1},
      {"uniform 8, top-8 (every expert chosen)", uniform(8), 8, 1, 1},
      {"uniform 64, top-1", uniform(64), 1, 1, 1},
      {"power law 1.2, 256, top-8", powerLaw(256, 1.2), 8, 1, 1},
      {"power law 3, 64, top-6", powerLaw(64, 3.0), 6, 1, 1},
      // Masses that underflow to 0 or sit near the smallest double: the bounds fall back to
      // scoring everyone, and zero-mass experts tie at -inf (broken by id).
      {"power law 150, 64, top-8", powerLaw(64, 150.0), 8, 1, 1},
      {"power law 300, 32, top-8", powerLaw(32, 300.0), 8, 1, 1},
      {"group-limited 256 in 8 groups, 4 allowed, top-8", uniform(256), 8, 8, 4},
      {"group-limited 64 in 8 groups, 1 allowed, top-8", uniform(64), 8, 8, 1},
      {"group-limited power law 2, 128 in 16 groups, 3 allowed, top-8", powerLaw(128, 2.0), 8, 16,
       3},
      {"all groups allowed", powerLaw(64, 1.0), 4, 8, 8},
  };
  // A hotspot: 4 experts hold 90% of the mass.
  std::vector<double> hot(64, 0.1 / 60);
  for (int i = 0; i < 4; ++i) hot[static_cast<std::size_t>(i * 16)] = 0.9 / 4;
  c.push_back({"hotspot 4 of 64 at 90%, top-8", hot, 8, 1, 1});
  c.push_back({"hotspot, group-limited 8 groups, 2 allowed", hot, 8, 8, 2});
  return c;
}

// Routes 20,000 tokens with both routers, each from its own stream, and asserts the same
// ids and the same weights, bit for bit, for every token.
void expectSameChoices(TokenRouter& fast, TokenRouter& plain, Rng& a, Rng& b, int topk) {
  std::vector<std::int32_t> idsA(static_cast<std::size_t>(topk)), idsB(idsA.size());
  std::vector<float> wA(idsA.size()), wB(idsA.size());
  for (int t = 0; t < 20000; ++t) {
    fast.route(a, idsA.data(), wA.data());
    plain.routeByAllScores(b, idsB.data(), wB.data());
    ASSERT_EQ(idsA, idsB) << "token " << t;
    ASSERT_EQ(0, std::memcmp(wA.data(), wB.data(), wA.size() * sizeof(float))) << "token " << t;
  }
}

// route() leaves out the experts that cannot be chosen; its choice must be the plain
// definition's, bit for bit, ids and weights, and it must use the random stream the same way.
TEST(TokenRouter, SkippingUnchoosableExpertsChoosesExactlyWhatScoringEveryExpertDoes) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    TokenRouter fast(c.popularity, c.topk, c.groups, c.topkGroups);
    TokenRouter plain(c.popularity, c.topk, c.groups, c.topkGroups);
    Rng a(12345), b(12345);
    expectSameChoices(fast, plain, a, b, c.topk);
    if (HasFatalFailure()) return;
    EXPECT_EQ(a.next(), b.next());  // the same draws were taken
  }
}

// Near-ties at the K-th place are where a loose bound would go wrong: two experts of equal
// mass whose draws differ in the last bits of u. Forcing many tokens through such ties (a
// few experts far above the rest, K cutting through an equal-mass block) checks the margin.
TEST(TokenRouter, TiesAtTheCutOfEqualMassExpertsAreBrokenAsThePlainDefinitionBreaksThem) {
  std::vector<double> p(96, 1e-6);
  for (int i = 0; i < 8; ++i) p[static_cast<std::size_t>(i * 12)] = 0.1;
  for (int topk : {4, 8, 9, 12}) {
    SCOPED_TRACE("top-" + std::to_string(topk));
    TokenRouter fast(p, topk, 1, 1), plain(p, topk, 1, 1);
    Rng a(7), b(7);
    expectSameChoices(fast, plain, a, b, topk);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
