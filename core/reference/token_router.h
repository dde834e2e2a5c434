#pragma once
// Routes one token to K experts by Gumbel-top-k over log-popularity: K experts drawn without
// replacement in proportion to their popularity, honouring group limits (DeepSeek's
// node-limited routing: only the `topkGroups` groups whose best expert scores highest may be
// chosen). Scratch buffers are members, so the per-token loop does not allocate; a copy per
// thread routes in parallel.

#include <cstdint>
#include <vector>

#include "core/util/rng.h"

namespace moe {

class TokenRouter {
 public:
  // `popularity`: one positive (or underflowed-to-zero) mass per expert; `groups` equal
  // groups of experts (1: no limit), of which the token may use `topkGroups`.
  TokenRouter(const std::vector<double>& popularity, int topk, int groups, int topkGroups);

  // Writes K ids and weights (descending) for the next token drawn from `rng`: one uniform
  // draw per expert, in expert order. Only the experts that could be chosen get their
  // Gumbel score computed (see the .cpp); the choice is the one routeByAllScores makes.
  void route(Rng& rng, std::int32_t* ids, float* weights);
  // The plain definition: every expert's score, then the top K. The reference for route().
  void routeByAllScores(Rng& rng, std::int32_t* ids, float* weights);

 private:
  double scoreOf(int e) const { return logP_[e] + Rng::gumbelOf(u_[e]); }
  // Keeps in experts_ the experts of the topkGroups_ groups of groupOrder_ whose best
  // scores (groupMax_) are highest.
  void allowBestGroups();
  // Orders experts_ by score_ (already set for each of them) and writes the first K as the
  // token's choice.
  void chooseBest(std::int32_t* ids, float* weights);

  int k_, groups_, topkGroups_, perGroup_;
  std::vector<double> p_, logP_;
  // Per token: each expert's uniform draw, the bounds of its key p / -log(u), its score.
  std::vector<double> u_, lo_, hi_, score_;
  std::vector<int> experts_;
  std::vector<double> groupMax_, groupLo_, groupHi_;
  std::vector<int> groupOrder_;
  std::vector<double> heap_;  // kthLargest's scratch
  std::vector<float> chosen_;
};

// Softmax of `scores` (already in descending order) into `out`, in fp32, the order kept.
// Each weight is floored at the smallest normal float: a routed slot must carry a positive
// weight even if an extreme popularity ratio would underflow exp(); the floor moves the sum
// by at most K * 1.2e-38.
void softmaxInto(const float* scores, int k, float* out);

}  // namespace moe
