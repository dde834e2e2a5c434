#pragma once
// How an emulated kernel spreads a flat range of elements over its vector cores (DESIGN.md §3.1):
// contiguous ranges, the first `total % cores` cores take one extra element. Kept apart from
// any one operator because several emulated kernels split work the same way, and the app
// shows each core's range.

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace moe {

// Half-open range [begin, end) of flat element indices owned by one core.
struct CoreRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  bool operator==(const CoreRange&) const = default;
};

// Returns exactly `cores` ranges that tile [0, total) in order. Cores beyond `total` get
// empty ranges (begin == end) so callers can index the result by core id without checks.
// A negative total or a non-positive core count is a programming error, not user input.
inline std::vector<CoreRange> splitContiguous(int64_t total, int cores) {
  if (total < 0) throw std::invalid_argument("splitContiguous: total must be >= 0");
  if (cores <= 0) throw std::invalid_argument("splitContiguous: cores must be > 0");
  const int64_t base = total / cores;
  const int64_t extra = total % cores;
  std::vector<CoreRange> ranges;
  ranges.reserve(static_cast<std::size_t>(cores));
  int64_t begin = 0;
  for (int c = 0; c < cores; ++c) {
    const int64_t len = base + (c < extra ? 1 : 0);
    ranges.push_back({begin, begin + len});
    begin += len;
  }
  return ranges;
}

}  // namespace moe
