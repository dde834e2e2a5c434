#include "core/observe/interval_union.h"

#include <algorithm>

namespace moe {

void IntervalUnion::add(Time start, Time end) {
  if (end <= start) return;
  // The first span that could touch [start, end): the one starting at or before `start`.
  auto it = spans_.upper_bound(start);
  if (it != spans_.begin() && std::prev(it)->second >= start) --it;
  // Absorb every span that starts no later than `end`.
  while (it != spans_.end() && it->first <= end) {
    start = std::min(start, it->first);
    end = std::max(end, it->second);
    it = spans_.erase(it);
  }
  spans_.emplace_hint(it, start, end);
}

Time IntervalUnion::measure() const {
  Time t = 0;
  for (const auto& [s, e] : spans_) t += e - s;
  return t;
}

Time IntervalUnion::overlap(const IntervalUnion& other) const {
  Time t = 0;
  auto a = spans_.begin(), b = other.spans_.begin();
  while (a != spans_.end() && b != other.spans_.end()) {
    const Time lo = std::max(a->first, b->first), hi = std::min(a->second, b->second);
    if (hi > lo) t += hi - lo;
    if (a->second < b->second)
      ++a;
    else
      ++b;
  }
  return t;
}

Time IntervalUnion::measureWithin(Time from, Time to) const {
  Time t = 0;
  auto it = spans_.upper_bound(from);
  if (it != spans_.begin()) --it;
  for (; it != spans_.end() && it->first < to; ++it) {
    const Time lo = std::max(it->first, from), hi = std::min(it->second, to);
    if (hi > lo) t += hi - lo;
  }
  return t;
}

}  // namespace moe
