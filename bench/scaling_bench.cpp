// How the emulator scales, in one run (never asserted in tests):
//   * BM_PayloadNoneLayer/R: the whole layer (streaming dispatch and combine) at R ranks
//     (R/8 servers x 8 cards, 128 tokens per rank, 256 experts, payload none): "ns_per_event"
//     (process CPU time per event) and "events_per_second", its inverse;
//     "flows_per_recompute" is how many transfers each bandwidth solve re-rated, the main
//     reason the cost per event grows with the cluster.
//   * BM_FullPayloadRss: the default scenario (16 ranks, full payload, streaming, freeing
//     dead tensors as moe-sim run does):
//     "tensor_bytes" (x, expanded rows, expert outputs, combine output, summed over ranks)
//     against the process's peak RSS during the run ("peak_rss_bytes", "rss_per_tensor_byte").
//     The peak is reset first (/proc/self/clear_refs, after giving back what earlier cases
//     left in the heap and the warm GM chunks and ring pages), so the figure is the run's, not the
//     256-rank case's, even in a full run. It still counts what the process held when the run
//     began ("rss_at_start_bytes"), and in a full run that includes heap the earlier cases left
//     that malloc_trim could not return: 56 MB after the 64-rank case against 35 MB alone (the
//     peak 482 against 472 MB).
//   * BM_DispatchDataPathCold and BM_DispatchDataPathWarm vs BM_MemcpyOfTheSameRows:
//     streaming dispatch with real bytes, counting the token rows delivered, against memcpy
//     of exactly those rows; cold on memory new to the process, warm on the memory an
//     earlier run left.
// Run: build/release/bench/scaling_bench (or build/dev/bench/scaling_bench).

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>

#include "core/machine/memory.h"
#include "core/run/layer_run.h"
#include "core/scenario/scenario_json.h"

using namespace moe;

namespace {

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Scenario payloadNone(int ranks) {
  Scenario sc = defaultScenario();
  sc.cluster.servers = ranks / sc.cluster.cardsPerServer;
  sc.model.tokensPerRank = 128;
  sc.model.experts = 256;  // so 256 ranks still hold one instance each
  sc.payload = PayloadMode::None;
  return sc;
}

void BM_PayloadNoneLayer(benchmark::State& state) {
  const Scenario sc = payloadNone(static_cast<int>(state.range(0)));
  auto gating = std::make_shared<const std::vector<RankGating>>(generateGating(sc));
  std::uint64_t events = 0;
  double seconds = 0;
  for (auto _ : state) {
    LayerRun run(ResolvedScenario::resolve(sc, gating), Design::Streaming);
    // CPU time of this process, not wall time: the machine is shared, and a busy neighbour
    // must not read as a slower engine.
    const double t0 = cpuSeconds();
    run.runToEnd();
    seconds += cpuSeconds() - t0;
    events += run.emulation().sim().eventsRun();
    const FlowNetwork& net = run.emulation().machine().net();
    state.counters["flows_per_recompute"] =
        static_cast<double>(net.flowsRecomputed()) / static_cast<double>(net.recomputes());
  }
  state.counters["events"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  state.counters["ns_per_event"] = seconds * 1e9 / static_cast<double>(events);
  state.counters["events_per_second"] = static_cast<double>(events) / seconds;
}
BENCHMARK(BM_PayloadNoneLayer)
    ->Arg(16)
    ->Arg(64)
    ->Arg(256)
    // Repeated until the row has run for 3 s: one 16-rank layer takes about 0.4 s, and a
    // single run of it moved the 256/16 ratio by a quarter between two runs of the bench.
    // The 256-rank row runs once.
    ->MinTime(3.0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

std::int64_t tensorBytes(const LayerRun& run) {
  const std::int64_t row = static_cast<std::int64_t>(run.context().sc.model.hidden) * 2;
  std::int64_t bytes = 0;
  for (const CardTensors& t : run.context().cards)
    bytes += 2 * t.dispatch.recvRows * row +  // expanded rows, expert out
             2 * static_cast<std::int64_t>(run.context().sc.model.tokensPerRank) * row;  // x, out
  return bytes;
}

// Starts a new peak-RSS window: what earlier cases freed goes back to the OS, then the
// kernel's high-water mark (VmHWM) is reset to the current RSS. False if it cannot be.
bool resetPeakRss() {
  releaseWarmHostMemory();
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

// A field of /proc/self/status in bytes (VmHWM, VmRSS), or -1 if it cannot be read.
double statusBytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0)
      return std::stod(line.substr(field.size() + 1)) * 1024;  // in kB
  return -1;
}

// The peak RSS in bytes since resetPeakRss (VmHWM), or the process's (ru_maxrss).
double peakRssBytes(bool reset) {
  if (reset) {
    if (const double hwm = statusBytes("VmHWM"); hwm >= 0) return hwm;
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024;
}

void BM_FullPayloadRss(benchmark::State& state) {
  const Scenario sc = defaultScenario();
  auto gating = std::make_shared<const std::vector<RankGating>>(generateGating(sc));
  for (auto _ : state) {
    const bool reset = resetPeakRss();
    const double atStart = statusBytes("VmRSS");
    LayerRun run(ResolvedScenario::resolve(sc, gating), Design::Streaming);
    run.freeTensorsWhenDead(nullptr);  // as moe-sim run holds memory
    run.runToEnd();
    const double rss = peakRssBytes(reset);
    state.counters["tensor_bytes"] = static_cast<double>(tensorBytes(run));
    state.counters["peak_rss_bytes"] = rss;
    state.counters["rss_at_start_bytes"] = atStart;
    state.counters["rss_per_tensor_byte"] = rss / static_cast<double>(tensorBytes(run));
  }
}
BENCHMARK(BM_FullPayloadRss)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

struct DataPath {
  Scenario sc = defaultScenario();
  std::shared_ptr<const std::vector<RankGating>> gating =
      std::make_shared<const std::vector<RankGating>>(generateGating(sc));
  std::int64_t rowsDelivered = 0;
};
DataPath& dataPath() {
  static DataPath d;
  return d;
}

// Emulates the default scenario up to the experts (the streaming dispatch, its bytes
// landed), and counts the rows it delivered.
void dispatchOnce(DataPath& d) {
  LayerRun run(ResolvedScenario::resolve(d.sc, d.gating), Design::Streaming);
  while (run.currentStage() != "experts" && run.step()) {
  }
  d.rowsDelivered = 0;
  for (const CardTensors& t : run.context().cards) d.rowsDelivered += t.dispatch.recvRows;
}

// Cold: each run starts with no warm memory in the process (as a single moe-sim run does),
// so every page it writes is a fresh fault and the kernel's zeroing.
void BM_DispatchDataPathCold(benchmark::State& state) {
  DataPath& d = dataPath();
  for (auto _ : state) {
    state.PauseTiming();
    releaseWarmHostMemory();
    state.ResumeTiming();
    dispatchOnce(d);
  }
  state.SetBytesProcessed(state.iterations() * d.rowsDelivered * d.sc.model.hidden * 2);
}
BENCHMARK(BM_DispatchDataPathCold)->Iterations(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Warm: runs after the first reuse the GM chunks and ring pages an earlier run left (a
// sweep's next point, the second design of `run -j 1`); one untimed run warms them.
void BM_DispatchDataPathWarm(benchmark::State& state) {
  DataPath& d = dataPath();
  dispatchOnce(d);
  for (auto _ : state) dispatchOnce(d);
  state.SetBytesProcessed(state.iterations() * d.rowsDelivered * d.sc.model.hidden * 2);
}
BENCHMARK(BM_DispatchDataPathWarm)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemcpyOfTheSameRows(benchmark::State& state) {
  DataPath& d = dataPath();
  if (d.rowsDelivered == 0) {
    state.SkipWithError("run a BM_DispatchDataPath case first (it counts the rows)");
    return;
  }
  const std::size_t row = static_cast<std::size_t>(d.sc.model.hidden) * 2;
  std::vector<std::uint8_t> dst(static_cast<std::size_t>(d.rowsDelivered) * row);
  const auto& x = (*d.gating)[0].x;
  const std::size_t srcRows = x.size() * 2 / row;
  for (auto _ : state) {
    for (std::int64_t r = 0; r < d.rowsDelivered; ++r)
      std::memcpy(&dst[static_cast<std::size_t>(r) * row],
                  reinterpret_cast<const std::uint8_t*>(x.data()) +
                      (static_cast<std::size_t>(r) % srcRows) * row,
                  row);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * d.rowsDelivered * static_cast<std::int64_t>(row));
}
BENCHMARK(BM_MemcpyOfTheSameRows)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
