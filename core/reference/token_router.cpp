#include "core/reference/token_router.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <numeric>

namespace moe {
namespace {

// Higher score first; equal scores go to the lower id, so selection never depends on sort
// stability or platform.
struct ByScore {
  const std::vector<double>& score;
  bool operator()(int a, int b) const {
    const double sa = score[static_cast<std::size_t>(a)], sb = score[static_cast<std::size_t>(b)];
    return sa != sb ? sa > sb : a < b;
  }
};

// Why route() may leave most experts unscored. An expert's score, log p + gumbel(u), is
// log(p / L) with L = -log(u), so experts rank by their key p / L. As 1 - u <= L <=
// (1 - u) / u, the key lies in [lo, hi] = [p u / (1 - u), p / (1 - u)]: a division and a
// product instead of two logarithms. When K experts have lo >= T, an expert with
// hi < T (1 - kMargin) ranks below all K of them. The computed score is log(p / L) to
// within ~1e-13 (the logarithms' and the sum's rounding, |log p| <= 745); the margin,
// 1e-9 in log terms, is far above that, so an expert left out is one the full computation
// ranks strictly below K others: it can be neither chosen nor the best of a group that
// is. Keys near the smallest normal double lose relative precision, so a threshold below
// kTinyKey scores everyone.
constexpr double kMargin = 1e-9;
constexpr double kTinyKey = 1e-290;

// The k-th largest of value(i), i in [0, n) (k <= n), keeping the k largest in a min-heap.
template <class Value>
double kthLargest(int n, int k, Value value, std::vector<double>& heap) {
  heap.clear();
  for (int i = 0; i < n; ++i) {
    const double v = value(i);
    if (static_cast<int>(heap.size()) < k) {
      heap.push_back(v);
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    } else if (v > heap.front()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      heap.back() = v;
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
  }
  return heap.front();
}

}  // namespace

TokenRouter::TokenRouter(const std::vector<double>& popularity, int topk, int groups,
                         int topkGroups)
    : k_(topk),
      groups_(groups),
      topkGroups_(topkGroups),
      perGroup_(static_cast<int>(popularity.size()) / groups),
      p_(popularity),
      u_(popularity.size()),
      lo_(popularity.size()),
      hi_(popularity.size()),
      score_(popularity.size()),
      groupMax_(static_cast<std::size_t>(groups)),
      groupLo_(static_cast<std::size_t>(groups)),
      groupHi_(static_cast<std::size_t>(groups)),
      chosen_(static_cast<std::size_t>(topk)) {
  for (double p : p_) logP_.push_back(std::log(p));
  experts_.reserve(p_.size());
  groupOrder_.reserve(static_cast<std::size_t>(groups));
}

void TokenRouter::route(Rng& rng, std::int32_t* ids, float* weights) {
  const int n = static_cast<int>(p_.size());
  for (int e = 0; e < n; ++e) {
    const double u = rng.uniformOpen();
    u_[e] = u;
    hi_[e] = p_[e] / (1 - u);
    lo_[e] = hi_[e] * u;
  }
  if (groups_ <= 1 || topkGroups_ >= groups_) {  // no group limit
    // Only the experts that could be among the best K.
    const double t = kthLargest(
        n, k_, [&](int e) { return lo_[e]; }, heap_);
    const double cut = t > kTinyKey ? t * (1 - kMargin) : -1.0;
    experts_.clear();
    for (int e = 0; e < n; ++e)
      if (hi_[e] >= cut) experts_.push_back(e);
    for (int e : experts_) score_[e] = scoreOf(e);
    chooseBest(ids, weights);
    return;
  }
  // The groups that could be among the best topkGroups_ get their best expert's score;
  // only the experts that could be that best are scored.
  for (int g = 0; g < groups_; ++g) {
    const auto first = static_cast<std::ptrdiff_t>(g) * perGroup_;
    groupLo_[g] = *std::max_element(lo_.begin() + first, lo_.begin() + first + perGroup_);
    groupHi_[g] = *std::max_element(hi_.begin() + first, hi_.begin() + first + perGroup_);
  }
  const double tg = kthLargest(
      groups_, topkGroups_, [&](int g) { return groupLo_[g]; }, heap_);
  groupOrder_.clear();
  for (int g = 0; g < groups_; ++g) {
    if (tg > kTinyKey && groupHi_[g] < tg * (1 - kMargin)) continue;
    groupOrder_.push_back(g);
    const double floor = groupLo_[g] > kTinyKey ? groupLo_[g] * (1 - kMargin) : -1.0;
    double best = -std::numeric_limits<double>::infinity();
    for (int e = g * perGroup_; e < (g + 1) * perGroup_; ++e)
      if (hi_[e] >= floor) best = std::max(best, scoreOf(e));
    groupMax_[g] = best;
  }
  allowBestGroups();
  // Of the allowed experts, only those that could be among the best K.
  const double t = kthLargest(
      static_cast<int>(experts_.size()), k_,
      [&](int i) { return lo_[experts_[static_cast<std::size_t>(i)]]; }, heap_);
  if (t > kTinyKey) std::erase_if(experts_, [&](int e) { return hi_[e] < t * (1 - kMargin); });
  for (int e : experts_) score_[e] = scoreOf(e);
  chooseBest(ids, weights);
}

void TokenRouter::routeByAllScores(Rng& rng, std::int32_t* ids, float* weights) {
  for (std::size_t e = 0; e < logP_.size(); ++e) score_[e] = logP_[e] + rng.gumbel();
  if (groups_ > 1 && topkGroups_ < groups_) {
    for (int g = 0; g < groups_; ++g) {
      const auto first = score_.begin() + static_cast<std::ptrdiff_t>(g) * perGroup_;
      groupMax_[static_cast<std::size_t>(g)] = *std::max_element(first, first + perGroup_);
    }
    groupOrder_.resize(static_cast<std::size_t>(groups_));
    std::iota(groupOrder_.begin(), groupOrder_.end(), 0);
    allowBestGroups();
  } else {
    experts_.clear();
    for (int e = 0; e < static_cast<int>(logP_.size()); ++e) experts_.push_back(e);
  }
  chooseBest(ids, weights);
}

void TokenRouter::allowBestGroups() {
  std::partial_sort(groupOrder_.begin(), groupOrder_.begin() + topkGroups_, groupOrder_.end(),
                    ByScore{groupMax_});
  experts_.clear();
  for (int i = 0; i < topkGroups_; ++i) {
    const int g = groupOrder_[static_cast<std::size_t>(i)];
    for (int e = g * perGroup_; e < (g + 1) * perGroup_; ++e) experts_.push_back(e);
  }
}

void TokenRouter::chooseBest(std::int32_t* ids, float* weights) {
  std::partial_sort(experts_.begin(), experts_.begin() + k_, experts_.end(), ByScore{score_});
  for (int j = 0; j < k_; ++j) {
    const int e = experts_[static_cast<std::size_t>(j)];
    ids[j] = e;
    chosen_[static_cast<std::size_t>(j)] = static_cast<float>(score_[static_cast<std::size_t>(e)]);
  }
  softmaxInto(chosen_.data(), k_, weights);
}

void softmaxInto(const float* scores, int k, float* out) {
  const float m = scores[0];
  float sum = 0;
  for (int j = 0; j < k; ++j) {
    out[j] = std::max(std::exp(scores[j] - m), std::numeric_limits<float>::min());
    sum += out[j];
  }
  for (int j = 0; j < k; ++j) out[j] /= sum;
}

}  // namespace moe
