// Speed of the emulator, measured (never asserted in tests):
//   * BM_DispatchStreamingFull: the default scenario through streaming dispatch with real
//     bytes; "bytes_per_second" counts the token rows delivered into expandX.
//   * BM_MemcpyOfTheSameRows: memcpy of exactly those rows, row by row, in the same process:
//     the yardstick for the data path (target: dispatch >= 0.5x memcpy).
//   * BM_EnginePayloadNone: the same dispatch with payload "none": "events_per_second" is
//     the discrete-event engine's rate (target: >= 5 M/s).
// Run: build/release/bench/dispatch_bench

#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>

#include "core/run/layer_run.h"
#include "core/scenario/scenario_json.h"

using namespace moe;

namespace {

struct Fixture {
  Scenario sc;
  std::shared_ptr<const std::vector<RankGating>> gating;
  std::int64_t rowsDelivered = 0;
};

Fixture& fixture(PayloadMode payload) {
  static Fixture full, none;
  Fixture& f = payload == PayloadMode::Full ? full : none;
  if (!f.gating) {
    f.sc = defaultScenario();
    f.sc.payload = payload;
    f.gating = std::make_shared<const std::vector<RankGating>>(generateGating(f.sc));
  }
  return f;
}

// Runs the layer up to the end of dispatch; returns the events it took.
std::uint64_t runDispatch(Fixture& f) {
  LayerRun run(ResolvedScenario::resolve(f.sc, f.gating), Design::Streaming);
  while (run.currentStage() != "experts" && run.step()) {
  }
  f.rowsDelivered = 0;
  for (const CardTensors& t : run.context().cards) f.rowsDelivered += t.dispatch.recvRows;
  return run.emulation().sim().eventsRun();
}

void BM_DispatchStreamingFull(benchmark::State& state) {
  Fixture& f = fixture(PayloadMode::Full);
  for (auto _ : state) benchmark::DoNotOptimize(runDispatch(f));
  state.SetBytesProcessed(state.iterations() * f.rowsDelivered * f.sc.model.hidden * 2);
}
BENCHMARK(BM_DispatchStreamingFull)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemcpyOfTheSameRows(benchmark::State& state) {
  Fixture& f = fixture(PayloadMode::Full);
  if (f.rowsDelivered == 0) runDispatch(f);
  const std::size_t row = static_cast<std::size_t>(f.sc.model.hidden) * 2;
  std::vector<std::uint8_t> dst(static_cast<std::size_t>(f.rowsDelivered) * row);
  const auto& x = (*f.gating)[0].x;
  const std::size_t srcRows = x.size() * 2 / row;
  for (auto _ : state) {
    for (std::int64_t r = 0; r < f.rowsDelivered; ++r)
      std::memcpy(&dst[static_cast<std::size_t>(r) * row],
                  reinterpret_cast<const std::uint8_t*>(x.data()) +
                      (static_cast<std::size_t>(r) % srcRows) * row,
                  row);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * f.rowsDelivered * static_cast<std::int64_t>(row));
}
BENCHMARK(BM_MemcpyOfTheSameRows)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_EnginePayloadNone(benchmark::State& state) {
  Fixture& f = fixture(PayloadMode::None);
  std::uint64_t events = 0;
  for (auto _ : state) events += runDispatch(f);
  LayerRun probe(ResolvedScenario::resolve(f.sc, f.gating), Design::Streaming);
  while (probe.currentStage() != "experts" && probe.step()) {
  }
  const FlowNetwork& net = probe.emulation().machine().net();
  state.counters["rate_recomputes"] = static_cast<double>(net.recomputes());
  state.counters["flows_per_recompute"] =
      static_cast<double>(net.flowsRecomputed()) / net.recomputes();
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EnginePayloadNone)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
