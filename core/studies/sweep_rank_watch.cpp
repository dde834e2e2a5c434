#include "core/studies/sweep_rank_watch.h"

#include <algorithm>
#include <cmath>

namespace moe {

void SweepRankWatch::handedOut(int rank, std::size_t point, double now) {
  holding_[rank] = {point, now, now};
}

void SweepRankWatch::heard(int rank, double now) {
  const auto it = holding_.find(rank);
  if (it != holding_.end()) it->second.lastHeard = std::max(it->second.lastHeard, now);
}

void SweepRankWatch::finished(int rank, double now) {
  const auto it = holding_.find(rank);
  if (it == holding_.end()) return;
  slowest_ = std::max(slowest_, now - it->second.since);
  holding_.erase(it);
}

double SweepRankWatch::timeoutSeconds() const {
  if (timeout_) return *timeout_;
  return std::max(kMinDefaultSeconds, kSlowestPointFactor * slowest_);
}

std::optional<SweepRankWatch::Silent> SweepRankWatch::silent(double now) const {
  std::optional<Silent> worst;
  for (const auto& [rank, h] : holding_) {
    const double quiet = now - h.lastHeard;
    if (quiet > timeoutSeconds() && (!worst || quiet > worst->seconds))
      worst = Silent{rank, h.point, quiet};
  }
  return worst;
}

std::string SweepRankWatch::Silent::message() const {
  return "rank " + std::to_string(rank) + " silent for " +
         std::to_string(static_cast<long long>(std::floor(seconds))) + " s on point " +
         std::to_string(point);
}

}  // namespace moe
