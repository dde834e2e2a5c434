#pragma once
// The discrete-event queue. Events run in (time, insertion order), so every run is
// reproducible. An event is a plain function pointer plus context: no allocation per event.
//
// Three structures keep that order cheaply:
//  * events for the current instant (a coroutine resumed "now", a recompute, a latch) go to
//    a FIFO. Most events are of this kind, and a FIFO costs O(1) with no cache misses;
//  * later events whose delay recurs go to a FIFO lane per delay. Most later events are a
//    fixed latency after the event that made them (an operation lands one GM latency after
//    it crossed: two in three of a 4096-token prefill's), and since the clock never goes
//    back, the events one delay makes come in (time, sequence) order: a lane is sorted by
//    construction, and a push or pop costs O(1) instead of a sift through a large heap;
//  * the other later events go to a 4-ary min-heap on (time, sequence number): half the
//    depth of a binary heap, and the four children of a node share a cache line or two.
// A timer is an event that can be moved or cancelled before it runs (a transfer's end,
// which moves whenever its rate changes). It sits in the heap at a tracked position and is
// taken out when it moves, so the heap holds no dead entries: at 64 ranks the dead ends of
// re-rated transfers were once four in five of the heap's entries.
// The order is still exactly (time, insertion order): each structure holds its events in
// that order, and pop() takes the first of the heap's top, the lanes' heads and the FIFO.
// A delay gets a lane once it has been seen kLaneAfter times (while lanes are left): which
// events sit in a lane and which in the heap changes nothing but the cost.
// Memory follows what is pending, not the most that ever was: the layout stage of a
// 256-rank run has about a million landings pending at once and later stages far fewer, so
// the heap, the FIFO and the event slots give back their capacity once they are mostly
// empty (amortised O(1): each give-back follows at least as many pops as it copies).

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <unordered_map>
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

// An event as pop() hands it out.
struct Event {
  Time time;
  Action action;
};

class EventQueue {
 public:
  // `now` is the simulator's clock: an event at `now` joins the FIFO. (A timer always goes
  // to the heap, where it can be found again.)
  void push(Time time, Time now, Action action) {
    if (time == now) {
      now_.push_back(NowEvent{takeSeq(), action});
      nowPeak_ = std::max(nowPeak_, now_.size() - nowHead_);
      return;
    }
    if (const int lane = laneFor(time - now); lane >= 0) {
      Lane& l = lanes_[static_cast<std::size_t>(lane)];
      l.events.push_back(LaneEvent{time, takeSeq(), action});
      if (l.events.size() == 1) {  // a new head: it may come before the first lane's
        heads_[static_cast<std::size_t>(lane)] = headOf(l);
        busyLanes_ |= 1u << lane;
        if (firstLane_ < 0 || earlier(heads_[lane], heads_[firstLane_])) firstLane_ = lane;
      }
      ++inLanes_;
      return;
    }
    const std::uint32_t slot = takeEventSlot();
    events_[slot] = action;
    heap_.push_back(Entry{time, key(slot)});
    siftUp(heap_.size() - 1);
  }
  // A timer has its own slot for good (numbered apart from the events'), so its handle is
  // the slot.
  TimerId newTimer() {
    if (timers_.size() == kMaxSlots)
      throw std::length_error("event queue: more than 2^23 timers in one run");
    timers_.emplace_back();
    return static_cast<TimerId>(timers_.size() - 1);
  }
  // (Re)arms a timer: a pending one is taken out first. The event gets a new sequence
  // number, so it runs exactly where a fresh push() of it would.
  void setTimer(TimerId id, Time time, Action action) {
    timers_[id].action = action;
    const std::uint32_t i = timers_[id].pos;
    if (i == kIdle) {
      heap_.push_back(Entry{time, key(id | kTimerBit)});
      siftUp(heap_.size() - 1);
      return;
    }
    // A pending timer moves where it sits: one sift instead of a removal and a push (a
    // re-rated transfer's end moves on every rate change). The order is the same as
    // cancelling and pushing it afresh: the entry takes the next sequence number.
    heap_[i] = Entry{time, key(id | kTimerBit)};
    resift(i);
  }
  // A sequence number taken now for an event armed later (setTimerAt): the event runs
  // where one armed now would, among events at its time. A bandwidth class holds one timer
  // for its members' ends; each member's place in that order is the one its own timer
  // would have had.
  std::uint64_t reserveSeq() { return takeSeq(); }
  // As setTimer, with a sequence number from reserveSeq() instead of a new one.
  void setTimerAt(TimerId id, Time time, std::uint64_t seq, Action action) {
    timers_[id].action = action;
    const Entry e{time, seq << kSlotBits | kTimerBit | id};
    const std::uint32_t i = timers_[id].pos;
    if (i == kIdle) {
      heap_.push_back(e);
      siftUp(heap_.size() - 1);
      return;
    }
    heap_[i] = e;
    resift(i);
  }
  void cancelTimer(TimerId id) {
    const std::uint32_t i = timers_[id].pos;
    if (i == kIdle) return;
    timers_[id].pos = kIdle;
    const std::size_t last = heap_.size() - 1;
    if (i != last) {
      heap_[i] = heap_[last];
      heap_.pop_back();
      resift(i);  // the moved entry may belong higher or lower than the hole it filled
    } else {
      heap_.pop_back();
    }
  }
  bool empty() const { return heap_.empty() && inLanes_ == 0 && nowEmpty(); }
  std::size_t size() const { return heap_.size() + inLanes_ + (now_.size() - nowHead_); }
  // Time of the next event (only when !empty()); FIFO events are at the clock's `now`.
  Time nextTime(Time now) const {
    if (!nowEmpty()) return now;
    const int lane = laneBeforeHeap();
    return lane >= 0 ? heads_[lane].time : heap_.front().time;
  }
  // Removes and returns the next event; `now` is the clock before it runs.
  Event pop(Time now) {
    // The lanes' first event, if it comes before the heap's, and before the FIFO's (a lane
    // event at the current instant was inserted before every FIFO event with a larger seq).
    if (const int lane = laneBeforeHeap();
        lane >= 0 &&
        (nowEmpty() || (heads_[lane].time == now && heads_[lane].seq < now_[nowHead_].seq)))
      return popLane(lane);
    if (!heap_.empty() && (nowEmpty() || (heap_.front().time == now &&
                                          seqOf(heap_.front().key) < now_[nowHead_].seq))) {
      const Entry top = heap_.front();
      const std::uint32_t slot = slotOf(top.key);
      Event e{top.time, {}};
      if (slot & kTimerBit) {
        TimerSlot& t = timers_[slot & ~kTimerBit];
        t.pos = kIdle;
        e.action = t.action;
      } else {
        e.action = events_[slot];
        freeEvents_.push_back(slot);
      }
      heap_.front() = heap_.back();
      heap_.pop_back();
      if (!heap_.empty()) siftDown(0);
      if ((heap_.capacity() >= kShrinkFrom && heap_.size() * 4 < heap_.capacity()) ||
          (events_.size() >= kShrinkFrom && liveEvents() * 4 < events_.size()))
        giveBackHeapSpace();
      return e;
    }
    const Event e{now, now_[nowHead_++].action};
    if (nowHead_ == now_.size()) {
      now_.clear(), nowHead_ = 0;  // keeps its capacity, unless it is far more than needed
      if (now_.capacity() >= kShrinkFrom && nowPeak_ * 4 < now_.capacity()) now_.shrink_to_fit();
      nowPeak_ = 0;
    }
    return e;
  }
  void clear() {
    for (const Entry& e : heap_) {
      const std::uint32_t slot = slotOf(e.key);
      if (slot & kTimerBit)
        timers_[slot & ~kTimerBit].pos = kIdle;
      else
        freeEvents_.push_back(slot);
    }
    heap_.clear();
    now_.clear();
    nowHead_ = 0;
    for (std::size_t i = 0; i < lanes_.size(); ++i) {
      lanes_[i].events.clear();
      heads_[i] = kNoHead;
    }
    busyLanes_ = 0;
    inLanes_ = 0;
    firstLane_ = -1;
  }

 private:
  // A heap entry is 16 bytes: the time, and one key holding the sequence number (high
  // bits) and the slot of its action (low bits; the top one of them tells a timer's slot
  // from an event's). The keys order as the sequence numbers do, so (time, key) is (time,
  // insertion order), whatever the slots. Small entries keep a node's four children in one
  // cache line: sifting through a large heap (every transfer's end in a 256-rank run) was
  // mostly cache misses when an entry carried its action.
  struct Entry {
    Time time;
    std::uint64_t key;
  };
  struct NowEvent {
    std::uint64_t seq;
    Action action;
  };
  struct TimerSlot {
    Action action;
    std::uint32_t pos = kIdle;  // index in heap_, or kIdle
  };
  struct LaneEvent {
    Time time;
    std::uint64_t seq;
    Action action;
  };
  // A deque gives back its front blocks as they run: a lane that never drains (the layout
  // stage's million landings) holds about what is pending, not everything since it began.
  struct Lane {
    Time delay = 0;
    std::deque<LaneEvent> events;  // pending, in (time, seq) order
  };
  // A lane's first event, kept apart so that finding the first of all lanes reads one
  // small array.
  struct Head {
    Time time;
    std::uint64_t seq;
  };
  static constexpr Head kNoHead{INT64_MAX, ~std::uint64_t{0}};
  static constexpr std::size_t kMaxLanes = 8;
  static constexpr std::uint32_t kLaneAfter = 64;   // pushes with one delay before it gets a lane
  static constexpr std::size_t kMaxCounted = 4096;  // delays counted at once
  static constexpr std::size_t kArity = 4;
  static constexpr int kSlotBits = 24;
  static constexpr std::uint32_t kTimerBit = std::uint32_t{1} << (kSlotBits - 1);
  static constexpr std::uint64_t kMaxSlots = kTimerBit;  // of each kind
  static constexpr std::uint64_t kMaxSeq = std::uint64_t{1} << (64 - kSlotBits);
  static constexpr std::uint32_t kIdle = ~std::uint32_t{0};
  // Below this many entries a vector keeps its capacity: small runs never reallocate.
  static constexpr std::size_t kShrinkFrom = std::size_t{1} << 16;

  std::uint64_t takeSeq() {
    if (nextSeq_ == kMaxSeq)
      throw std::length_error("event queue: more than 2^40 events in one run");
    return nextSeq_++;
  }
  std::uint64_t key(std::uint32_t slot) { return takeSeq() << kSlotBits | slot; }
  static std::uint64_t seqOf(std::uint64_t key) { return key >> kSlotBits; }
  static std::uint32_t slotOf(std::uint64_t key) {
    return static_cast<std::uint32_t>(key & ((std::uint64_t{1} << kSlotBits) - 1));
  }
  std::uint32_t takeEventSlot() {
    if (!freeEvents_.empty()) {
      const std::uint32_t slot = freeEvents_.back();
      freeEvents_.pop_back();
      return slot;
    }
    if (events_.size() == kMaxSlots)
      throw std::length_error("event queue: more than 2^23 events pending at once");
    events_.emplace_back();
    return static_cast<std::uint32_t>(events_.size() - 1);
  }
  std::size_t liveEvents() const { return events_.size() - freeEvents_.size(); }
  // Renumbers the pending events' slots 0, 1, ... in heap order and drops the rest: a slot
  // is only where an action is kept, so the order of events is unchanged.
  void packEvents() {
    std::vector<Action> packed;
    packed.reserve(liveEvents());
    for (Entry& e : heap_) {
      const std::uint32_t slot = slotOf(e.key);
      if (slot & kTimerBit) continue;
      e.key = seqOf(e.key) << kSlotBits | static_cast<std::uint32_t>(packed.size());
      packed.push_back(events_[slot]);
    }
    events_ = std::move(packed);
    freeEvents_ = {};
  }
  [[gnu::noinline]] void giveBackHeapSpace() {
    if (heap_.capacity() >= kShrinkFrom && heap_.size() * 4 < heap_.capacity())
      heap_.shrink_to_fit();
    if (events_.size() >= kShrinkFrom && liveEvents() * 4 < events_.size()) packEvents();
  }
  // Records where heap_[i] now sits (only timers are looked up by slot).
  void place(std::size_t i) {
    const std::uint32_t slot = slotOf(heap_[i].key);
    if (slot & kTimerBit) timers_[slot & ~kTimerBit].pos = static_cast<std::uint32_t>(i);
  }
  bool nowEmpty() const { return nowHead_ == now_.size(); }
  static Head headOf(const Lane& l) { return Head{l.events.front().time, l.events.front().seq}; }
  static bool earlier(const Head& a, const Head& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  // The lane whose first event comes before every other lane's and the heap's, or -1 when
  // the lanes are empty or the heap's top comes first.
  int laneBeforeHeap() const {
    if (firstLane_ < 0) return -1;
    if (!heap_.empty() &&
        !earlier(heads_[firstLane_], Head{heap_.front().time, seqOf(heap_.front().key)}))
      return -1;
    return firstLane_;
  }
  // Finds the first lane afresh: only needed when that lane's head is taken. Only lanes
  // with events are compared (most of the eight are empty at any one time).
  void findFirstLane() {
    firstLane_ = -1;
    if (busyLanes_ == 0) return;
    firstLane_ = std::countr_zero(busyLanes_);
    for (std::uint32_t rest = busyLanes_ & (busyLanes_ - 1); rest != 0; rest &= rest - 1)
      if (const int i = std::countr_zero(rest); earlier(heads_[i], heads_[firstLane_]))
        firstLane_ = i;
  }
  Event popLane(int lane) {
    Lane& l = lanes_[static_cast<std::size_t>(lane)];
    const Event e{l.events.front().time, l.events.front().action};
    l.events.pop_front();
    --inLanes_;
    if (l.events.empty()) {
      heads_[static_cast<std::size_t>(lane)] = kNoHead;
      busyLanes_ &= ~(1u << lane);
    } else {
      heads_[static_cast<std::size_t>(lane)] = headOf(l);
    }
    findFirstLane();
    return e;
  }
  // The lane for events `delay` after the clock, or -1 for the heap. A delay is counted
  // until it has a lane; once every lane is taken, nothing more is counted.
  int laneFor(Time delay) {
    for (std::size_t i = 0; i < lanes_.size(); ++i)
      if (laneDelays_[i] == delay) return static_cast<int>(i);
    if (lanes_.size() == kMaxLanes) return -1;
    return countDelay(delay);
  }
  // Out of line: rare once the lanes are taken, and it keeps push() small.
  [[gnu::noinline]] int countDelay(Time delay) {
    // Compute times and transfer ends make many delays that never recur: the counts start
    // again rather than grow with the run (a recurring delay soon counts up again).
    if (seenDelays_.size() >= kMaxCounted) seenDelays_.clear();
    if (++seenDelays_[delay] < kLaneAfter) return -1;
    seenDelays_.erase(delay);
    laneDelays_[lanes_.size()] = delay;
    lanes_.emplace_back().delay = delay;
    heads_[lanes_.size() - 1] = kNoHead;
    if (lanes_.size() == kMaxLanes) seenDelays_ = {};
    return static_cast<int>(lanes_.size()) - 1;
  }
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
  std::vector<Lane> lanes_;              // at most kMaxLanes, in the order they were made
  std::array<Head, kMaxLanes> heads_{};  // by lane: its first event, or kNoHead
  // By lane: its delay, apart from the lanes so that every push's lookup reads one line.
  std::array<Time, kMaxLanes> laneDelays_{};
  std::size_t inLanes_ = 0;  // events pending in all lanes
  // The lane whose head comes first (-1: all empty). It changes only when a head does: a
  // push to an empty lane, or a pop. Scanning every head at each pop and peek was 5% of
  // a 64-rank run's instructions.
  int firstLane_ = -1;
  std::uint32_t busyLanes_ = 0;                         // bit i: lane i has events
  std::unordered_map<Time, std::uint32_t> seenDelays_;  // pushes by delay, until it has a lane
  std::vector<Action> events_;                          // by event slot: the action to run
  std::vector<std::uint32_t> freeEvents_;               // event slots no pending event holds
  std::vector<TimerSlot> timers_;                       // by timer id
  std::vector<NowEvent> now_;  // FIFO of events at the current instant, from nowHead_
  std::size_t nowHead_ = 0;
  std::size_t nowPeak_ = 0;  // most events in the FIFO at once since it last drained
  std::uint64_t nextSeq_ = 0;
};

}  // namespace moe
