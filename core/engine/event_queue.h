#pragma once
// The discrete-event queue: a binary heap ordered by (time, sequence number). The sequence
// number makes equal-time events run in insertion order, so every run is reproducible.
// An event is a plain function pointer plus context: no allocation per event.

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

struct Event {
  Time time;
  std::uint64_t seq;
  Action action;
};

class EventQueue {
 public:
  void push(Time time, Action action) {
    heap_.push_back(Event{time, nextSeq_++, action});
    siftUp(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event pop() {
    Event e = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) siftDown(0);
    return e;
  }
  void clear() { heap_.clear(); }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void siftUp(std::size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void siftDown(std::size_t i) {
    const std::size_t n = heap_.size();
    Event e = heap_[i];
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  std::uint64_t nextSeq_ = 0;
};

}  // namespace moe
