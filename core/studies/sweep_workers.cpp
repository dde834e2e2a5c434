#include "core/studies/sweep_workers.h"

#include <algorithm>
#include <cstdio>

#include "core/run/layer_args.h"
#include "core/run/memory_estimate.h"
#include "core/studies/sweep_point.h"
#include "core/util/error.h"
#include "core/util/parallel_map.h"

namespace moe {

namespace {

std::string gigabytes(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return buf;
}

}  // namespace

std::string SweepWorkers::note() const {
  return "using " + std::to_string(workers) + " workers instead of " + std::to_string(requested) +
         ": each point needs ~" + gigabytes(perPointBytes) + ", " + gigabytes(availableBytes) +
         " available";
}

std::uint64_t sweepPointMemory(const SweepSpec& spec, std::size_t index) {
  try {
    const Scenario sc = sweepPointScenario(spec, sweepPointValues(spec, index));
    return estimateMemory(sc, scenarioPlacePerRank(sc)).hostBytes;
  } catch (const InputError&) {
    return 0;
  }
}

SweepWorkers planSweepWorkers(const SweepSpec& spec, const std::vector<std::size_t>& points,
                              unsigned requested, std::uint64_t available) {
  SweepWorkers w;
  w.requested = resolveThreadCount(requested, points.size());
  w.availableBytes = available;
  std::uint64_t largest = 0;
  for (std::size_t p : points) largest = std::max(largest, sweepPointMemory(spec, p));
  w.perPointBytes = largest + kWorkerThreadOverheadBytes;
  const std::uint64_t fit = available / w.perPointBytes;
  w.workers = static_cast<unsigned>(std::clamp<std::uint64_t>(fit, 1, w.requested));
  return w;
}

}  // namespace moe
