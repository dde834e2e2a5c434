#pragma once
// The discrete-event simulator: current time, the event queue, and the top-level programs
// (one C++20 coroutine per emulated core, plus the host driver that launches stages).
// Nothing here knows about NPUs; the machine model (core/machine/) sits on top.

#include <coroutine>
#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/event_queue.h"
#include "core/engine/task.h"

namespace moe {

class Simulator {
 public:
  Time now() const { return now_; }
  std::uint64_t eventsRun() const { return eventsRun_; }
  std::size_t pendingEvents() const { return queue_.size(); }
  // Time of the next event; only valid when pendingEvents() > 0.
  Time nextEventTime() const { return queue_.nextTime(now_); }

  // Schedules an action at an absolute time (never in the past, never past
  // kMaxEmulatedTime: that throws the InputError of emulatedTimeCapError()).
  void at(Time t, Action a);
  void after(Time dt, Action a) { at(checkedAdd(now_, dt), a); }
  // A timer: an event that can be re-armed or cancelled before it runs (see EventQueue).
  TimerId newTimer() { return queue_.newTimer(); }
  // Arms `id` for time t (same rules as at()), replacing its pending event if any.
  void setTimer(TimerId id, Time t, Action a);
  void cancelTimer(TimerId id) { queue_.cancelTimer(id); }
  // A place in the order of events at equal times, taken now for a timer armed later with
  // setTimerAt (see EventQueue::reserveSeq).
  std::uint64_t reserveSeq() { return queue_.reserveSeq(); }
  // As setTimer, at the place `seq` took.
  void setTimerAt(TimerId id, Time t, std::uint64_t seq, Action a);
  void resumeAt(Time t, std::coroutine_handle<> h) {
    at(t, Action{&resumeTrampoline, h.address(), 0});
  }

  // Starts a top-level program at the current time. The simulator owns it from now on.
  // Returns its index, which stays valid for the simulator's lifetime. A program that has
  // finished without an error gives its coroutine frames back at a later spawn (its name
  // and index stay): a layer's earlier stages are tens of thousands of finished programs.
  int spawn(Task task, std::string name);
  bool programDone(int index) const { return programs_[index].task.done(); }
  const std::string& programName(int index) const { return programs_[index].name; }
  int programCount() const { return static_cast<int>(programs_.size()); }
  // Indices of programs that have started but not finished.
  std::vector<int> unfinishedPrograms() const;

  // Runs one event. Returns false when the queue is empty or the run was halted.
  bool step();
  // Stops the run for good: the early deadlock watch found a core nothing can wake.
  void halt() { halted_ = true; }
  bool halted() const { return halted_; }
  // Runs events with time <= limit.
  void runUntil(Time limit);
  void run() { runUntil(INT64_MAX); }

 private:
  static void resumeTrampoline(void* address, std::uint64_t) {
    std::coroutine_handle<>::from_address(address).resume();
  }
  struct Program {
    Task task;
    std::string name;
  };

  void freeFinishedFrames();
  void runNext();  // runs the next event (the queue is not empty)

  EventQueue queue_;
  Time now_ = 0;
  std::uint64_t eventsRun_ = 0;
  bool halted_ = false;
  std::vector<Program> programs_;
  // freeFinishedFrames runs every kFreeEvery spawns and visits only `unswept_`: the
  // programs unfinished at its last run and those spawned since. A stage's programs are
  // then freed during the next stage's launch, whatever the stages' sizes.
  static constexpr int kFreeEvery = 4096;
  int spawnsSinceFree_ = 0;
  std::vector<int> unswept_;
};

// A countdown the host driver awaits: each program of a stage is added before it starts
// and counts down once when it ends.
class Latch {
 public:
  explicit Latch(Simulator& sim) : sim_(sim) {}
  void add(int n) { count_ += n; }
  void countDown() {
    if (--count_ == 0 && waiter_) sim_.resumeAt(sim_.now(), waiter_);
  }
  int remaining() const { return count_; }
  bool await_ready() const noexcept { return count_ <= 0; }
  void await_suspend(std::coroutine_handle<> h) noexcept { waiter_ = h; }
  void await_resume() const noexcept {}

 private:
  Simulator& sim_;
  int count_ = 0;
  std::coroutine_handle<> waiter_;
};

// Suspends the awaiting program for dt of emulated time.
struct Delay {
  Simulator& sim;
  Time dt;
  bool await_ready() const noexcept { return dt <= 0; }
  void await_suspend(std::coroutine_handle<> h) const {
    sim.resumeAt(checkedAdd(sim.now(), dt), h);
  }
  void await_resume() const noexcept {}
};

}  // namespace moe
