#pragma once
// How many sweep points run at once on this machine. Each point holds one run's cluster in
// host memory (core/run/memory_estimate.h), so `-j N` points at once can need more than the
// process may take: then fewer workers run, and the rows are the same as with enough memory
// (a point never fails for lack of memory another worker holds). Workers only change speed.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/run/memory_estimate.h"
#include "core/studies/sweep_spec.h"

namespace moe {

struct SweepWorkers {
  unsigned requested = 1;           // -j, or every core, at most one per point
  unsigned workers = 1;             // what fits: at least 1, at most requested
  std::uint64_t perPointBytes = 0;  // the largest point's estimate plus the overhead
  std::uint64_t availableBytes = 0;
  bool reduced() const { return workers < requested; }
  // "using 1 workers instead of 2: each point needs ~2.1 GB, 3.0 GB available"
  std::string note() const;
};

// The host memory the point's run is estimated to hold; 0 for a point that does not run
// (a value breaks a scenario rule: its row says so).
std::uint64_t sweepPointMemory(const SweepSpec& spec, std::size_t index);

// `requested` 0 means every core. `available`: what the process may still take
// (hostMemoryAvailable(), or a figure a test injects).
SweepWorkers planSweepWorkers(const SweepSpec& spec, const std::vector<std::size_t>& points,
                              unsigned requested, std::uint64_t available);

}  // namespace moe
