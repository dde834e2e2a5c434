#pragma once
// The discrete-event queue. Events run in (time, insertion order), so every run is
// reproducible. An event is a plain function pointer plus context: no allocation per event.
//
// Two structures keep that order cheaply:
//  * events for the current instant (a coroutine resumed "now", a recompute, a latch) go to
//    a FIFO. Most events are of this kind, and a FIFO costs O(1) with no cache misses;
//  * later events go to a 4-ary min-heap on (time, sequence number): half the depth of a
//    binary heap, and the four children of a node (16 bytes each) share a cache line.
// A timer is an event that can be moved or cancelled before it runs (a transfer's end,
// which moves whenever its rate changes). It sits in the heap at a tracked position and is
// taken out when it moves, so the heap holds no dead entries: at 64 ranks the dead ends of
// re-rated transfers were once four in five of the heap's entries.
// The order is still exactly (time, insertion order): both hold their events in that order,
// and when the heap's next event is also for the current instant, the one inserted first
// runs first.

#include <cstdint>
#include <stdexcept>
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
};

class EventQueue {
 public:
  // `now` is the simulator's clock: an event at `now` joins the FIFO. (A timer always goes
  // to the heap, where it can be found again.)
  void push(Time time, Time now, Action action) {
    if (time == now) {
      now_.push_back(Event{time, takeSeq(), action});
      return;
    }
    std::uint32_t slot;
    if (!freeSlots_.empty()) {
      slot = freeSlots_.back();
      freeSlots_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(actions_.size());
      if (slot > kIndexMask) throw std::length_error("EventQueue: too many pending events");
      actions_.emplace_back();
    }
    actions_[slot] = action;
    heap_.push_back(Entry{time, (takeSeq() << kIndexBits) | slot});
    siftUp(heap_.size() - 1);
  }
  TimerId newTimer() {
    if (timerPos_.size() > kIndexMask) throw std::length_error("EventQueue: too many timers");
    timerPos_.push_back(kIdle);
    timerActions_.emplace_back();
    return static_cast<TimerId>(timerPos_.size() - 1);
  }
  // (Re)arms a timer: a pending one is taken out first. The event gets a new sequence
  // number, so it runs exactly where a fresh push() of it would.
  void setTimer(TimerId id, Time time, Action action) {
    timerActions_[id] = action;
    const Entry e{time, (takeSeq() << kIndexBits) | kTimerBit | id};
    const std::size_t i = timerPos_[id];
    if (i == kIdle) {
      heap_.push_back(e);
      timerPos_[id] = heap_.size() - 1;
      siftUp(heap_.size() - 1);
      return;
    }
    // A pending timer moves where it sits: one sift instead of a removal and a push (a
    // re-rated transfer's end moves on every rate change). The order is the same as
    // cancelling and pushing it afresh: the entry takes the next sequence number.
    heap_[i] = e;
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
    if (!heap_.empty() && (nowEmpty() || (heap_.front().time == now &&
                                          heap_.front().key >> kIndexBits < now_[nowHead_].seq))) {
      const Entry top = heap_.front();
      heap_.front() = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) siftDown(0);
      const auto index = static_cast<std::uint32_t>(top.key & kIndexMask);
      Event e{top.time, top.key >> kIndexBits, {}};
      if (top.key & kTimerBit) {
        timerPos_[index] = kIdle;
        e.action = timerActions_[index];
      } else {
        e.action = actions_[index];
        freeSlots_.push_back(index);
      }
      return e;
    }
    const Event e = now_[nowHead_++];
    if (nowHead_ == now_.size()) now_.clear(), nowHead_ = 0;  // keeps its capacity
    return e;
  }
  void clear() {
    for (const Entry& e : heap_)
      if (e.key & kTimerBit)
        timerPos_[e.key & kIndexMask] = kIdle;
      else
        freeSlots_.push_back(static_cast<std::uint32_t>(e.key & kIndexMask));
    heap_.clear();
    now_.clear();
    nowHead_ = 0;
  }

 private:
  // A heap entry is 16 bytes, so a node's four children share one cache line: the time,
  // and one word holding the sequence number (high bits, so comparing words compares
  // sequence numbers), a timer flag and the index of the action (in timerActions_ for a
  // timer, else in actions_). The actions stay put while entries move.
  struct Entry {
    Time time;
    std::uint64_t key;
  };
  static constexpr int kIndexBits = 24;
  static constexpr std::uint64_t kTimerBit = std::uint64_t{1} << (kIndexBits - 1);
  static constexpr std::uint64_t kIndexMask = kTimerBit - 1;  // 8 M timers or pending events
  static constexpr std::uint64_t kMaxSeq = std::uint64_t{1} << (64 - kIndexBits);
  static constexpr std::size_t kArity = 4;
  static constexpr std::size_t kIdle = ~std::size_t{0};
  std::uint64_t takeSeq() {
    // 2^40 events: about a day of emulation at today's speed; refuse rather than misorder.
    if (nextSeq_ == kMaxSeq) throw std::length_error("EventQueue: event sequence exhausted");
    return nextSeq_++;
  }
  // Records where heap_[i] now sits if it is a timer.
  void place(std::size_t i) {
    if (heap_[i].key & kTimerBit) timerPos_[heap_[i].key & kIndexMask] = i;
  }
  bool nowEmpty() const { return nowHead_ == now_.size(); }
  static bool before(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.key < b.key);
  }
  // Restores the heap order around an entry that was replaced in place.
  void resift(std::size_t i) {
    if (i > 0 && before(heap_[i], heap_[(i - 1) / kArity]))
      siftUp(i);
    else
      siftDown(i);
  }
  void siftUp(std::size_t i) {
    const Entry e = heap_[i];
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
    const Entry e = heap_[i];
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

  std::vector<Entry> heap_;
  std::vector<Action> actions_;           // plain heap events' actions, by slot
  std::vector<std::uint32_t> freeSlots_;  // free slots of actions_
  std::vector<std::size_t> timerPos_;     // by TimerId: index in heap_, or kIdle
  std::vector<Action> timerActions_;      // by TimerId: the armed action
  std::vector<Event> now_;                // FIFO of events at the current instant, from nowHead_
  std::size_t nowHead_ = 0;
  std::uint64_t nextSeq_ = 0;
};

}  // namespace moe
