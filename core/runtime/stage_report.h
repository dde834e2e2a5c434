#pragma once
// What one stage of a run did: its typed id, its display name, when it ran, what the links
// carried and how the cores spent the time. A stage is one kernel launch followed by a
// stream sync (stage_runner.h).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/engine/time.h"
#include "core/record/states.h"

namespace moe {

// Every stage any design runs. Consumers select stages by id, never by matching names.
enum class StageId {
  UpdateExpert,
  Layout,
  DispatchNotify,
  Dispatch,
  Experts,
  Combine,
  AllToAll,       // the fused operator's sequential baseline ...
  Matmul,         // ...
  ReduceScatter,  // ... in three stages
  A2aMatmulRs,    // the fused operator's pipelined kernel, one stage
};

// The id's name as the reports print it: "update-expert", "dispatch", "all-to-all", ...
std::string_view stageIdName(StageId id);

struct StageReport {
  StageId id = StageId::Dispatch;
  // The display name: the id's name, with the design for the stages that differ by design
  // ("dispatch-streaming").
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
  // The name without the design ("dispatch" for "dispatch-streaming"): what lines two
  // designs' stages up side by side.
  std::string_view label() const { return stageIdName(id); }
};

}  // namespace moe
