#include "core/reference/max_min_fair.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace moe {

std::vector<double> maxMinFairRates(const std::vector<double>& capacity,
                                    const std::vector<std::vector<int>>& paths) {
  const std::size_t nr = capacity.size(), nf = paths.size();
  std::vector<double> left(capacity);
  std::vector<int> unfrozenOn(nr, 0);
  for (const auto& p : paths) {
    if (p.empty()) throw std::invalid_argument("maxMinFairRates: a flow with an empty path");
    for (int r : p) ++unfrozenOn[static_cast<std::size_t>(r)];
  }
  std::vector<double> rate(nf, -1.0);
  std::size_t unfrozen = nf;
  while (unfrozen > 0) {
    // The tightest resource sets the next level; every unfrozen flow crossing it stops there.
    double level = std::numeric_limits<double>::infinity();
    std::size_t tightest = 0;
    for (std::size_t r = 0; r < nr; ++r)
      if (unfrozenOn[r] > 0 && left[r] / unfrozenOn[r] < level) {
        level = left[r] / unfrozenOn[r];
        tightest = r;
      }
    for (std::size_t f = 0; f < nf; ++f) {
      if (rate[f] >= 0) continue;
      const auto& p = paths[f];
      if (std::find(p.begin(), p.end(), static_cast<int>(tightest)) == p.end()) continue;
      rate[f] = level;
      --unfrozen;
      for (int r : p) {
        left[static_cast<std::size_t>(r)] =
            std::max(0.0, left[static_cast<std::size_t>(r)] - level);
        --unfrozenOn[static_cast<std::size_t>(r)];
      }
    }
  }
  return rate;
}

}  // namespace moe
