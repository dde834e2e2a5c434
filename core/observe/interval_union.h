#pragma once
// A set of time, kept as disjoint sorted intervals: the union of every interval added.
// Built incrementally from activity records (any order), it answers "how long was any core
// of this kind working" and, against another union, "how much of that overlapped" — the
// timeline's measure of communication hidden under compute.

#include <cstddef>
#include <map>

#include "core/engine/time.h"

namespace moe {

class IntervalUnion {
 public:
  // Adds [start, end); empty or reversed intervals are ignored. O(log n) amortized.
  void add(Time start, Time end);
  void clear() { spans_.clear(); }
  // Total length covered.
  Time measure() const;
  // Length covered by both this and `other`.
  Time overlap(const IntervalUnion& other) const;
  // Length covered inside [from, to).
  Time measureWithin(Time from, Time to) const;
  std::size_t size() const { return spans_.size(); }
  // The disjoint intervals, start -> end, in time order.
  const std::map<Time, Time>& spans() const { return spans_; }

 private:
  std::map<Time, Time> spans_;
};

}  // namespace moe
