#pragma once
// The host side of a run, shared by every workload: stages run one after another, each a
// kernel launch followed by a stream sync. A stage is marked in the observer, its kernel
// launches one program per core (counting them on a latch), the host awaits the latch, and
// the stage's start, end and the bytes the links carried meanwhile are recorded.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/task.h"
#include "core/engine/time.h"
#include "core/runtime/emulation.h"
#include "core/runtime/stage_report.h"

namespace moe {

class StageRunner {
 public:
  explicit StageRunner(Emulation& emu) : emu_(emu) {}

  // Runs one stage: `launch` launches the kernel's programs and adds them to the latch, as
  // every launch<Kernel>(context, latch) function does. `name` is the display name
  // (StageReport::name).
  Task run(StageId id, std::string name, std::function<void(Latch&)> launch);
  // Marks the end of the last stage ("done").
  void finish() {
    current_ = "done";
    currentId_.reset();
  }

  // "not started", the running stage's name, then "done".
  const std::string& current() const { return current_; }
  // The running stage's id; none before the first stage and after the last.
  std::optional<StageId> currentId() const { return currentId_; }
  const std::vector<StageReport>& reports() const { return reports_; }

 private:
  Emulation& emu_;
  std::string current_ = "not started";
  std::optional<StageId> currentId_;
  std::vector<StageReport> reports_;
};

}  // namespace moe
