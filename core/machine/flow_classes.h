#pragma once
// Bottleneck classes with a shared virtual clock: the bookkeeping that lets a change of a
// max-min share re-time one timer instead of every transfer that shares it.
//
// In a max-min allocation every flow bottlenecked on the same resource runs at the same
// rate. Such flows form a class with one rate and a virtual clock V: the bytes each member
// has been served since the class began (GPS / fluid fair-queuing virtual time). A member
// that joins with b bytes left at clock V0 finishes when V reaches its tag V0 + b, whatever
// the rate does in between. So a rate change advances V once and re-times the class's one
// completion (its smallest tag); members keep their tags. A flow moves to another class
// only when its bottleneck changes: it leaves with its bytes left (tag - V) and joins the
// other class with them.
//
// The clock is kept as (vBase at tBase, rate): V(t) = vBase + rate * (t - tBase), and is
// re-based only when the rate changes, so a completion is tBase + (tag - vBase) / rate
// rounded once, the same arithmetic as a per-flow model re-timed at the same rate change.
// An empty class restarts its clock at 0, so tags stay as small as the bytes in flight.
// That arithmetic matches a per-flow model's only up to the first re-base: after several,
// tag - vBase and a per-flow running subtraction round differently. FlowNetwork therefore
// uses the tags to find the members that may finish first (nearFirst) and replays those
// members' bytes with the per-flow arithmetic for the exact picosecond.

#include <cstdint>
#include <vector>

#include "core/engine/time.h"

namespace moe {

class FlowClasses {
 public:
  static constexpr int kNone = -1;

  // Room for flow slots [0, flows) and classes [0, classes); never shrinks.
  void reserve(int flows, int classes);

  // The class's rate from `now` on (bytes per picosecond, >= 0); its clock first
  // advances at the old rate up to `now`.
  void setRate(int cls, Time now, double rate);
  // `flow` (in no class) joins `cls` at `now` with `remaining` bytes left.
  void join(int cls, int flow, Time now, double remaining);
  // `flow` leaves its class at `now`; returns its bytes left then (never below 0).
  double leave(int flow, Time now);

  int classOf(int flow) const {
    return flow < static_cast<int>(classOf_.size()) ? classOf_[flow] : kNone;
  }
  double rate(int cls) const { return classes_[cls].rate; }
  int size(int cls) const { return static_cast<int>(classes_[cls].heap.size()); }
  // Bytes `flow` has left at `now` (its class's rate applied since the last re-base).
  double remaining(int flow, Time now) const;
  // The member that finishes first (smallest tag; ties: the lower slot), or kNone.
  int first(int cls) const;
  // The i-th member, 0 <= i < size(cls), in no particular order.
  int member(int cls, int i) const { return classes_[cls].heap[static_cast<std::size_t>(i)].flow; }
  // Appends to `out` every member whose tag is at most first's tag plus `slack` bytes plus
  // 1e-9 of that tag (the rounding a long-lived clock carries): the members that may
  // finish with the first once each one's own rounding is counted.
  void nearFirst(int cls, double slack, std::vector<int>& out) const;
  // When first(cls) finishes: tBase + (tag - vBase) / rate in whole picoseconds, through
  // checkedPs (a starved class stops the run, it does not wrap). Needs a positive rate.
  Time firstFinish(int cls) const;

 private:
  struct Entry {
    double tag;
    int flow;
    bool before(const Entry& o) const { return tag < o.tag || (tag == o.tag && flow < o.flow); }
  };
  struct Class {
    double rate = 0;
    double vBase = 0;
    Time tBase = 0;
    std::vector<Entry> heap;  // binary min-heap of the members' finish tags
  };
  double clock(const Class& c, Time now) const {
    return c.vBase + c.rate * static_cast<double>(now - c.tBase);
  }
  void place(Class& c, std::size_t i);  // writes heap[i]'s position back to its flow
  void siftUp(Class& c, std::size_t i);
  void siftDown(Class& c, std::size_t i);

  std::vector<Class> classes_;
  std::vector<int> classOf_;   // by flow slot
  std::vector<int> position_;  // by flow slot: its index in its class's heap
};

}  // namespace moe
