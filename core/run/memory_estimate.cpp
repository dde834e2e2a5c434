#include "core/run/memory_estimate.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "core/machine/memory.h"
#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/protocol/ring_buffer.h"
#include "core/run/design_registry.h"
#include "core/runtime/record_layout.h"
#include "core/util/error.h"

namespace moe {
namespace {

// One GM item of one card: its bytes, and whether it is activation data (no bytes on the
// host with payload "none").
struct Item {
  std::string name;
  std::int64_t bytes;
  bool activation;
  bool routingDependent = false;
};

// A rough size of one event-log entry on the host (time, core, kind, a few ids, a label).
constexpr std::uint64_t kEventLogEntryBytes = 64;

std::vector<Item> itemsPerCard(const Scenario& sc, int P) {
  const std::int64_t R = sc.cluster.ranks(), S = sc.cluster.servers;
  const std::int64_t BS = sc.model.tokensPerRank, K = sc.model.topk;
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t row = rec.rowBytes, bk = BS * K;
  std::vector<Item> items = {
      {"x", BS * row, true},
      {"topk ids, weights, balanced ids", 3 * bk * 4, false},
      {"masks", bk + BS, false},
      {"eplb table", std::int64_t{sc.model.experts + sc.eplb.redundantExperts} * 8 + 8, false},
      {"layout counts",
       R * 4 + S * 4 + R * P * 4 + BS * R + R * dispatchRdmaChannels(sc) * (2 + P) * 4, false},
      {"x_out", BS * row, true},
  };
  if (sc.combine.addRmsNorm) items.push_back({"rmsnorm_y, rstd", BS * row + BS * 4, true});
  // The receive side: expand_x and expert_out, with scales and indices, at the expected
  // BS x K rows per card (the routing is not known yet).
  items.push_back({"expand_x, expert_out", 2 * bk * row, true, true});
  items.push_back({"expand scales and indices", bk * 16 + 2 * P * R * 4 + P * 4, false, true});

  // The designs run one after the other on fresh machines: the largest rule counts.
  std::optional<DesignMemory> largest;
  for (Design d : scenarioDesigns(sc)) {
    const DesignEntry& e = designEntry(d);
    if (!e.memory) continue;  // the fused operator has its own workspace rule
    const DesignMemory m = e.memory(sc, P);
    if (!largest || m.reservedBytes > largest->reservedBytes) largest = m;
  }
  if (largest) items.push_back({std::string(largest->label), largest->reservedBytes, true});
  return items;
}

// The host bytes of one card's activation data at the busiest moment of the largest
// design, as a run that frees what is dead holds them (runScenario): GM is allocated lazily,
// so a worst-case window costs what is written into it; expert_out shares expand_x's bytes
// (the experts compute in place) and is freed during the combine, the stage's windows and
// rings after their stage; designs run one after the other. Counted: x (the gating's
// tokens, which every design's run reads in place) and the combine output throughout, plus the
// larger of dispatch (expand_x and what dispatch writes into its windows or rings) and combine
// (expert_out and the combine's buffers as written).
std::int64_t activationHostPerCard(const Scenario& sc, int P) {
  const std::int64_t BS = sc.model.tokensPerRank, K = sc.model.topk;
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t row = rec.rowBytes, bk = BS * K;
  std::int64_t worst = 0;
  for (Design d : scenarioDesigns(sc)) {
    const DesignEntry& e = designEntry(d);
    if (!e.memory) continue;
    const DesignMemory m = e.memory(sc, P);
    worst = std::max({worst, bk * row + m.dispatchWritten, bk * row + m.combineWritten});
  }
  std::int64_t held = 2 * BS * row;  // x and x_out
  if (sc.combine.addRmsNorm) held += BS * row;
  return held + worst;
}

}  // namespace

std::string formatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

MemoryEstimate estimateMemory(const Scenario& sc, int placePerRank) {
  MemoryEstimate e;
  const bool full = sc.payload == PayloadMode::Full;
  std::uint64_t hostPerCard = 0;
  for (const Item& it : itemsPerCard(sc, placePerRank)) {
    e.gmPerCard += it.bytes;
    if (!it.routingDependent) e.fixedGmPerCard += it.bytes;
    if (!it.activation) hostPerCard += static_cast<std::uint64_t>(it.bytes);
    if (it.bytes > e.largestItemBytes) {
      e.largestItem = it.name;
      e.largestItemBytes = it.bytes;
    }
  }
  const auto ranks = static_cast<std::uint64_t>(sc.cluster.ranks());
  if (full)
    e.activationHostBytes =
        static_cast<std::uint64_t>(activationHostPerCard(sc, placePerRank)) * ranks;
  e.eventLogHostBytes = static_cast<std::uint64_t>(sc.eventLogCapacity) * kEventLogEntryBytes;
  e.hostBytes = hostPerCard * ranks + e.activationHostBytes + e.eventLogHostBytes;
  return e;
}

std::string largeWorkNote(const Scenario& sc) {
  char buf[256];
  if (sc.workload.kind == WorkloadKind::AlltoallMatmulRs) {
    const WorkloadConfig& w = sc.workload;
    auto tilesOf = [](int dim, int tile) { return (static_cast<double>(dim) + tile - 1) / tile; };
    // Emulation cost follows the tile steps (each a few events): the default has 24576.
    const double tiles =
        w.ranks * tilesOf(w.m, w.tileM) * tilesOf(w.n, w.tileN) * tilesOf(w.k, w.tileK);
    if (tiles < 1e6) return "";
    std::snprintf(buf, sizeof buf,
                  "note: a large run: %.3g matmul tile steps over %d ranks (tiles of %dx%dx%d); it "
                  "may take minutes",
                  tiles, w.ranks, w.tileM, w.tileN, w.tileK);
    return buf;
  }
  const double records =
      static_cast<double>(sc.cluster.ranks()) * sc.model.tokensPerRank * sc.model.topk;
  // Around a million token records the emulation takes tens of seconds or more, and sooner
  // on large clusters, where each record costs more (the flow model touches more flows):
  // 256 ranks x 128 tokens x top-8 (262,144 records) took 75 s on a 2-core machine.
  const double work = records * sc.cluster.ranks();
  if (records < 1e6 && work < 2e7) return "";
  const double bytes = records * static_cast<double>(recordLayout(sc).recordBytes);
  std::snprintf(buf, sizeof buf,
                "note: a large run: %.3g token records (%s) to dispatch and combine over %d ranks; "
                "it may take minutes",
                records, formatBytes(bytes).c_str(), sc.cluster.ranks());
  return buf;
}

std::uint64_t hostMemoryLimit() {
  std::uint64_t limit = UINT64_MAX;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    limit = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  rlimit rl{};
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    limit = std::min<std::uint64_t>(limit, rl.rlim_cur);
  return limit;
}

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
}  // namespace

std::uint64_t hostMemoryAvailable() {
  // The warm memory finished runs left in this process is the next run's first memory.
  const WarmHostMemory warm = warmHostMemory();
  std::uint64_t available = procKilobytes("/proc/meminfo", "MemAvailable:");
  if (available == 0) {
    const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    available = pages > 0 && page > 0
                    ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                    : UINT64_MAX;
  }
  if (available != UINT64_MAX) available += warm.residentBytes;
  rlimit rl{};
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t vm = procKilobytes("/proc/self/status", "VmSize:");
    const std::uint64_t mapped = vm > warm.mappedBytes ? vm - warm.mappedBytes : 0;
    const std::uint64_t limit = rl.rlim_cur;
    available = std::min(available, limit > mapped ? limit - mapped : 0);
  }
  return available;
}

void checkMemory(const Scenario& sc, int placePerRank, std::uint64_t hostLimit) {
  const MemoryEstimate e = estimateMemory(sc, placePerRank);
  const std::int64_t hbm = sc.hardware.hbmBytes;
  require(e.fixedGmPerCard <= hbm, "hardware.overrides.hbm_bytes",
          formatBytes(static_cast<double>(hbm)) +
              (hbm >= 1024 ? " (" + std::to_string(hbm) + " B)" : std::string()) +
              " cannot hold one card's " + formatBytes(static_cast<double>(e.fixedGmPerCard)) +
              " of buffers (the largest: " + e.largestItem + ", " +
              formatBytes(static_cast<double>(e.largestItemBytes)) + ")");
  if (e.hostBytes <= hostLimit) return;
  // Blame the largest part, and advise only what would shrink it: the event log, the
  // activation bytes (payload "full" only), or the rest, which the model and cluster size.
  const std::uint64_t rest = e.hostBytes - e.eventLogHostBytes - e.activationHostBytes;
  const std::string need = "the run needs an estimated " +
                           formatBytes(static_cast<double>(e.hostBytes)) +
                           " of host memory, more than the " +
                           formatBytes(static_cast<double>(hostLimit)) + " this process may use";
  if (e.eventLogHostBytes >= e.activationHostBytes && e.eventLogHostBytes >= rest)
    throw InputError("event_log_capacity",
                     need + ", " + formatBytes(static_cast<double>(e.eventLogHostBytes)) +
                         " of it the event log (" + std::to_string(sc.eventLogCapacity) +
                         " records); lower event_log_capacity");
  if (e.activationHostBytes >= rest)
    throw InputError("payload", need + ", " +
                                    formatBytes(static_cast<double>(e.activationHostBytes)) +
                                    " of it token data; use payload \"none\" or shrink the model");
  throw InputError("model", need + "; shrink the model or the cluster");
}

}  // namespace moe
