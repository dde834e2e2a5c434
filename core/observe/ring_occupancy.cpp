#include "core/observe/ring_occupancy.h"

#include <algorithm>
#include <unordered_map>

namespace moe {

std::vector<OccupancyPoint> ringOccupancyOverTime(const Observer& obs, std::size_t maxPoints) {
  const auto& samples = obs.ringSamples().items();
  std::vector<OccupancyPoint> steps;
  std::unordered_map<int, std::int64_t> perRing;
  std::int64_t total = 0;
  for (const RingPointerSample& s : samples) {
    std::int64_t& held = perRing[s.ring];
    total += (s.tail - s.head) - held;
    held = s.tail - s.head;
    if (!steps.empty() && steps.back().time == s.time)
      steps.back().bytes = total;  // the state after the last change at this time
    else
      steps.push_back({s.time, total});
  }
  if (maxPoints < 2 || steps.size() <= maxPoints) return steps;
  // Buckets of equal emulated time; each keeps its largest value at the bucket's start.
  const Time t0 = steps.front().time;
  const Time span = std::max<Time>(1, steps.back().time - t0);
  std::vector<OccupancyPoint> out;
  std::size_t bucket = static_cast<std::size_t>(-1);
  for (const OccupancyPoint& p : steps) {
    const auto b =
        static_cast<std::size_t>(static_cast<double>(p.time - t0) / static_cast<double>(span) *
                                 static_cast<double>(maxPoints - 1));
    if (b != bucket) {
      bucket = b;
      out.push_back({t0 + static_cast<Time>(static_cast<double>(span) * static_cast<double>(b) /
                                            static_cast<double>(maxPoints - 1)),
                     p.bytes});
    } else {
      out.back().bytes = std::max(out.back().bytes, p.bytes);
    }
  }
  out.push_back(steps.back());  // the final state (every ring drained at the end of a run)
  return out;
}

}  // namespace moe
