#pragma once
// The bytes held in all rings together over a run, from the observer's ring pointer
// samples (tail - head per ring, summed): what the A/B view plots for each side. Reduced to
// maxPoints buckets (plus the final state) by taking each time bucket's maximum, so a short peak
// survives the reduction. When the bounded log dropped early samples, rings start from their first
// sample still in the log.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/engine/time.h"
#include "core/record/observer.h"

namespace moe {

struct OccupancyPoint {
  Time time = 0;
  std::int64_t bytes = 0;
};

std::vector<OccupancyPoint> ringOccupancyOverTime(const Observer& obs, std::size_t maxPoints);

}  // namespace moe
