#include "core/reference/fluid_replay.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/reference/max_min_fair.h"

namespace moe {

namespace {

struct Active {
  int transfer;
  double remaining;
  double rate = 0;
  Time last;        // when `remaining` was last progressed
  Time finish = 0;  // valid once the rate is positive
};

// Progresses every active transfer to `now` and re-solves; re-times those whose rate moved.
void resolve(const std::vector<double>& capacity, const std::vector<FluidTransfer>& transfers,
             std::vector<Active>& active, Time now) {
  std::vector<std::vector<int>> paths;
  paths.reserve(active.size());
  for (const Active& a : active)
    paths.push_back(transfers[static_cast<std::size_t>(a.transfer)].path);
  const std::vector<double> rate = maxMinFairRates(capacity, paths);
  for (std::size_t k = 0; k < active.size(); ++k) {
    Active& a = active[k];
    // A rate that moved by rounding alone (an incremental solver keeps the old one) is not
    // a change: re-timing on it would shift a completion by a rounding picosecond.
    if (std::abs(rate[k] - a.rate) <= 1e-12 * a.rate) continue;
    a.remaining = std::max(0.0, a.remaining - a.rate * static_cast<double>(now - a.last));
    a.last = now;
    a.rate = rate[k];
    a.finish = checkedAdd(now, checkedPs(a.remaining / a.rate));
  }
}

}  // namespace

std::vector<Time> fluidCompletionTimes(const std::vector<double>& capacity,
                                       const std::vector<FluidTransfer>& transfers) {
  std::vector<Time> done(transfers.size(), 0);
  std::vector<std::size_t> order(transfers.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return transfers[a].start < transfers[b].start;
  });
  std::vector<Active> active;
  std::size_t next = 0;
  while (next < order.size() || !active.empty()) {
    Time now = next < order.size() ? transfers[order[next]].start : kMaxEmulatedTime;
    for (const Active& a : active) now = std::min(now, a.finish);
    // Ends first (they are due), then starts, then one solve for the instant.
    std::erase_if(active, [&](const Active& a) {
      if (a.finish != now) return false;
      done[static_cast<std::size_t>(a.transfer)] = now;
      return true;
    });
    for (; next < order.size() && transfers[order[next]].start == now; ++next) {
      const FluidTransfer& t = transfers[order[next]];
      if (t.bytes <= 0 || t.path.empty()) {
        done[order[next]] = now;
        continue;
      }
      active.push_back({static_cast<int>(order[next]), static_cast<double>(t.bytes), 0, now});
    }
    if (!active.empty()) resolve(capacity, transfers, active, now);
  }
  return done;
}

}  // namespace moe
