#pragma once
// The discrete-event queue. Events run in (time, insertion order), so every run is
// reproducible. An event is a plain function pointer plus context: no allocation per event.
//
// Two structures keep that order cheaply:
//  * events for the current instant (a coroutine resumed "now", a recompute, a latch) go to
//    a FIFO. Most events are of this kind, and a FIFO costs O(1) with no cache misses;
//  * later events go to a 4-ary min-heap on (time, sequence number): half the depth of a
//    binary heap, and the four children of a node share a cache line or two.
// A timer is an event that can be moved or cancelled before it runs (a transfer's end,
// which moves whenever its rate changes). It sits in the heap at a tracked position and is
// taken out when it moves, so the heap holds no dead entries: at 64 ranks the dead ends of
// re-rated transfers were once four in five of the heap's entries.
// The order is still exactly (time, insertion order): both hold their events in that order,
// and when the heap's next event is also for the current instant, the one inserted first
// runs first.

#include <cstdint>
#include <vector>

#include "core/engine/time.h"

namespace moe {

struct Action {
  void (*fn)(void* ctx, std::uint64_t arg) = nullptr;
  void* ctx = nullptr;
  std::uint64_t arg = 0;
  void operator()() const { fn(ctx, arg); }
};

// A timer's handle (Simulator::newTimer).
using TimerId = std::uint32_t;
constexpr TimerId kNoTimer = ~TimerId{0};

struct Event {
  Time time;
  std::uint64_t seq;
  Action action;
  TimerId timer = kNoTimer;  // the timer this event is, if any
};

class EventQueue {
 public:
  // `now` is the simulator's clock: an event at `now` joins the FIFO. (A timer always goes
  // to the heap, where it can be found again.)
  void push(Time time, Time now, Action action) {
    if (time == now) {
      now_.push_back(Event{time, nextSeq_++, action});
      return;
    }
    heap_.push_back(Event{time, nextSeq_++, action});
    siftUp(heap_.size() - 1);
  }
  TimerId newTimer() {
    timerPos_.push_back(kIdle);
    return static_cast<TimerId>(timerPos_.size() - 1);
  }
  // (Re)arms a timer: a pending one is taken out first. The event gets a new sequence
  // number, so it runs exactly where a fresh push() of it would.
  void setTimer(TimerId id, Time time, Action action) {
    const std::size_t i = timerPos_[id];
    if (i == kIdle) {
      heap_.push_back(Event{time, nextSeq_++, action, id});
      timerPos_[id] = heap_.size() - 1;
      siftUp(heap_.size() - 1);
      return;
    }
    // A pending timer moves where it sits: one sift instead of a removal and a push (a
    // re-rated transfer's end moves on every rate change). The order is the same as
    // cancelling and pushing it afresh: the entry takes the next sequence number.
    heap_[i] = Event{time, nextSeq_++, action, id};
    resift(i);
  }
  void cancelTimer(TimerId id) {
    const std::size_t i = timerPos_[id];
    if (i == kIdle) return;
    timerPos_[id] = kIdle;
    const std::size_t last = heap_.size() - 1;
    if (i != last) {
      heap_[i] = heap_[last];
      heap_.pop_back();
      resift(i);  // the moved entry may belong higher or lower than the hole it filled
    } else {
      heap_.pop_back();
    }
  }
  bool empty() const { return heap_.empty() && nowEmpty(); }
  std::size_t size() const { return heap_.size() + (now_.size() - nowHead_); }
  // Time of the next event (only when !empty()); FIFO events are at the clock's `now`.
  Time nextTime(Time now) const { return nowEmpty() ? heap_.front().time : now; }
  // Removes and returns the next event; `now` is the clock before it runs.
  Event pop(Time now) {
    if (!heap_.empty() &&
        (nowEmpty() || (heap_.front().time == now && heap_.front().seq < now_[nowHead_].seq))) {
      Event e = heap_.front();
      if (e.timer != kNoTimer) timerPos_[e.timer] = kIdle;
      heap_.front() = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) siftDown(0);
      return e;
    }
    const Event e = now_[nowHead_++];
    if (nowHead_ == now_.size()) now_.clear(), nowHead_ = 0;  // keeps its capacity
    return e;
  }
  void clear() {
    for (const Event& e : heap_)
      if (e.timer != kNoTimer) timerPos_[e.timer] = kIdle;
    heap_.clear();
    now_.clear();
    nowHead_ = 0;
  }

 private:
  static constexpr std::size_t kArity = 4;
  static constexpr std::size_t kIdle = ~std::size_t{0};
  // Records where heap_[i] now sits if it is a timer.
  void place(std::size_t i) {
    if (heap_[i].timer != kNoTimer) timerPos_[heap_[i].timer] = i;
  }
  bool nowEmpty() const { return nowHead_ == now_.size(); }
  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  // Restores the heap order around an entry that was replaced in place.
  void resift(std::size_t i) {
    if (i > 0 && before(heap_[i], heap_[(i - 1) / kArity]))
      siftUp(i);
    else
      siftDown(i);
  }
  void siftUp(std::size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      place(i);
      i = parent;
    }
    heap_[i] = e;
    place(i);
  }
  void siftDown(std::size_t i) {
    const std::size_t n = heap_.size();
    Event e = heap_[i];
    for (;;) {
      const std::size_t first = kArity * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + kArity < n ? first + kArity : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      place(i);
      i = best;
    }
    heap_[i] = e;
    place(i);
  }

  std::vector<Event> heap_;
  std::vector<std::size_t> timerPos_;  // by TimerId: index in heap_, or kIdle
  std::vector<Event> now_;             // FIFO of events at the current instant, from nowHead_
  std::size_t nowHead_ = 0;
  std::uint64_t nextSeq_ = 0;
};

}  // namespace moe
