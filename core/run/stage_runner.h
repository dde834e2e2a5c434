#pragma once
// The host side of a run, shared by every workload: stages run one after another, each a
// kernel launch followed by a stream sync. A stage is marked in the observer, its kernel
// launches one program per core (counting them on a latch), the host awaits the latch, and
// the stage's start, end and the bytes the links carried meanwhile are recorded.

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "core/engine/task.h"
#include "core/engine/time.h"
#include "core/runtime/emulation.h"

namespace moe {

struct StageReport {
  std::string name;
  Time start = 0;
  Time end = 0;
  double linkBytes = 0;  // bytes carried over HCCS and NIC links during the stage
  double hccsBytes = 0;
  double nicBytes = 0;
  std::int64_t rdmaPosts = 0;      // all RDMA posts issued during the stage (data + tail words)
  std::int64_t rdmaDataPosts = 0;  // data posts among them
  std::int64_t rdmaDataBytes = 0;  // bytes the data posts carried
  // Time the cores spent in each (role, activity) during the stage, summed over cores.
  using ActivityTimes = std::array<Time, static_cast<int>(Activity::Count)>;
  std::array<ActivityTimes, static_cast<int>(Role::Count)> roleActivity{};
  double meanRdmaPostBytes() const {
    return rdmaDataPosts > 0 ? static_cast<double>(rdmaDataBytes) / rdmaDataPosts : 0.0;
  }
  Time duration() const { return end - start; }
};

class StageRunner {
 public:
  explicit StageRunner(Emulation& emu) : emu_(emu) {}

  // Runs one stage: `launch` launches the kernel's programs and adds them to the latch, as
  // every launch<Kernel>(context, latch) function does.
  Task run(std::string name, std::function<void(Latch&)> launch);
  // Marks the end of the last stage ("done").
  void finish() { current_ = "done"; }

  // "not started", the running stage's name, then "done".
  const std::string& current() const { return current_; }
  const std::vector<StageReport>& reports() const { return reports_; }

 private:
  Emulation& emu_;
  std::string current_ = "not started";
  std::vector<StageReport> reports_;
};

}  // namespace moe
