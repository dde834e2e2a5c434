#include "core/studies/sweep_workers.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/run/layer_args.h"
#include "core/run/memory_estimate.h"
#include "core/studies/sweep_point.h"
#include "core/util/error.h"
#include "core/util/parallel_map.h"

namespace moe {

namespace {

// The "kB" figure of `key` in a /proc file, in bytes; 0 when absent.
std::uint64_t procKilobytes(const char* file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    std::istringstream s(line.substr(key.size()));
    std::uint64_t kb = 0;
    s >> kb;
    return kb * 1024;
  }
  return 0;
}

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
  w.perPointBytes = largest + kSweepWorkerOverheadBytes;
  const std::uint64_t fit = available / w.perPointBytes;
  w.workers = static_cast<unsigned>(std::clamp<std::uint64_t>(fit, 1, w.requested));
  return w;
}

std::uint64_t sweepMemoryAvailable() {
  std::uint64_t available = procKilobytes("/proc/meminfo", "MemAvailable:");
  if (available == 0) {
    const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    available = pages > 0 && page > 0
                    ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                    : UINT64_MAX;
  }
  rlimit rl{};
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t mapped = procKilobytes("/proc/self/status", "VmSize:");
    const std::uint64_t limit = rl.rlim_cur;
    available = std::min(available, limit > mapped ? limit - mapped : 0);
  }
  return available;
}

}  // namespace moe
