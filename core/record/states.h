#pragma once
// The vocabulary of DESIGN.md §4: core roles and activities. The UI colours by these, so every
// operator reuses them instead of inventing its own.

#include <array>
#include <cstdint>
#include <string_view>

namespace moe {

enum class Role : std::uint8_t {
  Idle,
  Sender,
  Forwarder,
  Receiver,
  Mapper,
  LayoutExpert,
  LayoutRank,
  Gemm,
  A2A,
  ReduceScatter,
  Count
};

enum class Activity : std::uint8_t {
  Idle,  // no program on the core (yet)
  Copy,  // waiting for a DMA (MTE2/MTE3), an RDMA post or a scalar GM access
  Vector,
  Cube,
  WaitSpace,  // producer waiting for ring space
  WaitData,   // consumer waiting for ring data or a flag
  WaitSync,   // waiting in a SyncAll barrier
  Done,
  Count
};

constexpr std::array<std::string_view, static_cast<int>(Role::Count)> kRoleNames = {
    "idle",          "sender",      "forwarder", "receiver", "mapper",
    "layout-expert", "layout-rank", "gemm",      "a2a",      "reduce-scatter"};
constexpr std::array<std::string_view, static_cast<int>(Activity::Count)> kActivityNames = {
    "idle", "copy", "vector", "cube", "wait-space", "wait-data", "wait-sync", "done"};

// A core at work: moving data or computing. Views count these as "busy".
constexpr bool isWorking(Activity a) {
  return a == Activity::Copy || a == Activity::Vector || a == Activity::Cube;
}
// A core blocked on another: ring space, ring data or a flag, or a barrier.
constexpr bool isWaiting(Activity a) {
  return a == Activity::WaitSpace || a == Activity::WaitData || a == Activity::WaitSync;
}

constexpr std::string_view roleName(Role r) {
  return kRoleNames[static_cast<int>(r)];
}
constexpr std::string_view activityName(Activity a) {
  return kActivityNames[static_cast<int>(a)];
}

}  // namespace moe
