#include "core/engine/simulator.h"

#include <algorithm>
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
  if (programs_.size() >= freeAt_) freeFinishedFrames();
  const auto handle = task.handle();
  programs_.push_back(Program{std::move(task), std::move(name)});
  resumeAt(now_, handle);
  return static_cast<int>(programs_.size()) - 1;
}

void Simulator::freeFinishedFrames() {
  std::size_t unfinished = 0;
  for (Program& p : programs_) {
    if (!p.task.done()) {
      ++unfinished;
      continue;
    }
    // An error stays, for runUntil to rethrow. An empty Task still reads as done.
    if (p.task.handle() && !p.task.handle().promise().error) p.task = Task();
  }
  freeAt_ = programs_.size() + std::max(kFreeEvery, unfinished);
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
  const Event e = queue_.pop(now_);
  now_ = e.time;
  ++eventsRun_;
  e.action();
  return true;
}

void Simulator::runUntil(Time limit) {
  while (!halted_ && !queue_.empty() && queue_.nextTime(now_) <= limit) step();
  if (halted_) queue_.clear();
  // A program that threw stops there; surface the kernel bug instead of a silent stall.
  for (const auto& p : programs_) p.task.rethrowIfFailed();
}

}  // namespace moe
