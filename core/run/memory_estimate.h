#pragma once
// How much memory a MoE-layer run will take, before it starts: the emulated HBM of one card
// (checked against hardware.hbm_bytes) and the host memory the emulator itself will hold
// (checked against what this process may use). Both payload modes are covered; ring and
// window reservations are included. The receive buffers depend on the routing, so they
// enter at their expected size (each card receives BS x K rows on average); a skewed
// routing can need more, which the run still catches, naming hbm_bytes.
//
// One function for the CLI, the workbench and the engine's memory accounting to share.

#include <cstdint>
#include <string>

#include "core/scenario/scenario.h"

namespace moe {

struct MemoryEstimate {
  // Emulated GM of one card: inputs, outputs, routing tables and the larger design's rings
  // or windows; `fixedGmPerCard` leaves out the routing-dependent receive buffers.
  std::int64_t fixedGmPerCard = 0;
  std::int64_t gmPerCard = 0;
  // What the emulator holds in host memory over all cards, plus the event log: the
  // non-activation buffers (ids, counts, ring control) and, with payload "full", the
  // activation bytes at the busiest stage of the largest design as `moe-sim run` holds
  // them: GM is allocated lazily (a worst-case window costs what is written), tensors are
  // freed once dead and each design's memory before the next. Activation buffers of
  // payload "none" hold no bytes.
  std::uint64_t hostBytes = 0;
  // The parts of hostBytes that a message can blame on one field: the event log
  // (event_log_capacity) and the activation bytes (payload "full"; 0 for "none").
  std::uint64_t eventLogHostBytes = 0;
  std::uint64_t activationHostBytes = 0;
  // The largest single item of one card, for messages ("x", "dispatch rings", ...).
  std::string largestItem;
  std::int64_t largestItemBytes = 0;
};

// placePerRank: expert instances per rank (scenarioPlacePerRank).
MemoryEstimate estimateMemory(const Scenario& sc, int placePerRank);

// The memory this process may use: the smaller of RLIMIT_AS and physical RAM.
std::uint64_t hostMemoryLimit();
// What it may still take now: the smaller of what RLIMIT_AS leaves over what is mapped
// (VmSize) and the RAM the kernel says is available (MemAvailable, /proc/meminfo), each
// with the warm memory earlier runs left for the next one counted as available.
std::uint64_t hostMemoryAvailable();
// Per worker thread that holds a run, beyond the run's estimate: a thread's stack and the
// address space glibc reserves for its malloc arena (64 MiB), with slack.
constexpr std::uint64_t kWorkerThreadOverheadBytes = std::uint64_t{128} << 20;

// Refuses, with the figure, a run whose fixed GM does not fit hardware.hbm_bytes or whose
// host memory exceeds hostLimit. InputError names hardware.overrides.hbm_bytes, or for host
// memory the largest part's field: event_log_capacity, payload (only when "full") or model.
void checkMemory(const Scenario& sc, int placePerRank, std::uint64_t hostLimit);

// A one-line note on the work a large run will do (records and bytes to move, or the
// fused operator's FLOPs), so a run that takes minutes says so up front; "" when small.
std::string largeWorkNote(const Scenario& sc);

// "1.8 MiB" style figure for messages.
std::string formatBytes(double bytes);

}  // namespace moe
