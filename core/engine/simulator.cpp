#include "core/engine/simulator.h"

#include <stdexcept>

namespace moe {

void Simulator::at(Time t, Action a) {
  if (t > kMaxEmulatedTime) throw emulatedTimeCapError();
  if (t < now_) throw std::logic_error("event scheduled in the past");
  if (halted_) return;  // the run is over (halt): nothing may run again
  queue_.push(t, now_, a);
}

void Simulator::setTimer(TimerId id, Time t, Action a) {
  if (t > kMaxEmulatedTime) throw emulatedTimeCapError();
  if (t < now_) throw std::logic_error("timer set in the past");
  if (halted_) return;
  queue_.setTimer(id, t, a);
}

void Simulator::setTimerAt(TimerId id, Time t, std::uint64_t seq, Action a) {
  if (t > kMaxEmulatedTime) throw emulatedTimeCapError();
  if (t < now_) throw std::logic_error("timer set in the past");
  if (halted_) return;
  queue_.setTimerAt(id, t, seq, a);
}

int Simulator::spawn(Task task, std::string name) {
  if (++spawnsSinceFree_ >= kFreeEvery) {
    spawnsSinceFree_ = 0;
    freeFinishedFrames();
  }
  const auto handle = task.handle();
  unswept_.push_back(static_cast<int>(programs_.size()));
  programs_.push_back(Program{std::move(task), std::move(name)});
  resumeAt(now_, handle);
  return static_cast<int>(programs_.size()) - 1;
}

void Simulator::freeFinishedFrames() {
  std::size_t kept = 0;
  for (const int i : unswept_) {
    Task& task = programs_[static_cast<std::size_t>(i)].task;
    if (!task.done()) {
      unswept_[kept++] = i;
      continue;
    }
    // An error stays, for runUntil to rethrow. An empty Task still reads as done.
    if (task.handle() && !task.handle().promise().error) task = Task();
  }
  unswept_.resize(kept);
}

std::vector<int> Simulator::unfinishedPrograms() const {
  std::vector<int> out;
  for (int i = 0; i < programCount(); ++i)
    if (!programs_[i].task.done()) out.push_back(i);
  return out;
}

bool Simulator::step() {
  // After halt() the queue is emptied on the next step and nothing is scheduled again, so
  // to every caller (the CLI, the workbench's stepping loops) the run looks like one with
  // nothing left to run.
  if (halted_) queue_.clear();
  if (queue_.empty()) return false;
  runNext();
  return true;
}

void Simulator::runNext() {
  const Event e = queue_.pop(now_);
  now_ = e.time;
  ++eventsRun_;
  e.action();
}

void Simulator::runUntil(Time limit) {
  if (limit == INT64_MAX) {  // run(): no event is too late, so none is peeked at first
    while (!halted_ && !queue_.empty()) runNext();
  } else {
    while (!halted_ && !queue_.empty() && queue_.nextTime(now_) <= limit) runNext();
  }
  if (halted_) queue_.clear();
  // A program that threw stops there; surface the kernel bug instead of a silent stall.
  for (const auto& p : programs_) p.task.rethrowIfFailed();
}

}  // namespace moe
