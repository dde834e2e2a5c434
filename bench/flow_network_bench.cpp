// The bandwidth model alone (core/machine/flow_network), without kernels, in the traffic
// shape that makes its cost grow with the cluster (never asserted in tests):
//   * BM_NicAllToAll/C: C cards, 8 per server; each card keeps one transfer in flight to one
//     card of every other server (hbm -> NIC tx -> NIC rx -> hbm, 64 KiB), and starts the
//     next to another card of that server when one ends. So k = servers - 1 transfers share
//     each NIC tx, and random destinations load the NIC rx unevenly: both ends saturate and
//     max-min ties the cluster together (a solve re-rates 2.6 transfers at 16 cards, 128 at
//     64, on this traffic). "ns_per_transfer" is process CPU time per completed transfer;
//     "flows_per_recompute" how many transfers each solve re-rated. 256 cards is left out:
//     per-flow re-rating makes it take many minutes.
// Run: build/release/bench/flow_network_bench

#include <benchmark/benchmark.h>

#include <ctime>
#include <random>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"

using namespace moe;

namespace {

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

constexpr int kCardsPerServer = 8;
constexpr std::int64_t kBytes = 64 * 1024;

struct Traffic {
  Simulator sim;
  FlowNetwork net{sim};
  std::vector<int> hbm, tx, rx;
  std::mt19937_64 rng{1};
  int servers = 0;
  std::int64_t completed = 0;
  std::int64_t target = 0;

  explicit Traffic(int cards) : servers(cards / kCardsPerServer) {
    for (int c = 0; c < cards; ++c) {
      hbm.push_back(net.addResource("hbm", 1600));
      tx.push_back(net.addResource("tx", 25));
      rx.push_back(net.addResource("rx", 25));
    }
  }
  // Stream `id` = card * servers + server: the next transfer from that card to a random
  // card of that server.
  void send(std::uint64_t id) {
    const int src = static_cast<int>(id / static_cast<std::uint64_t>(servers));
    const int server = static_cast<int>(id % static_cast<std::uint64_t>(servers));
    const int dst = server * kCardsPerServer + static_cast<int>(rng() % kCardsPerServer);
    net.start(FlowPath{hbm[src], tx[src], rx[dst], hbm[dst]}, kBytes, Action{&done, this, id});
  }
  static void done(void* self, std::uint64_t id) {
    auto* t = static_cast<Traffic*>(self);
    if (++t->completed < t->target) t->send(id);
  }
};

void BM_NicAllToAll(benchmark::State& state) {
  const int cards = static_cast<int>(state.range(0));
  double seconds = 0;
  std::int64_t transfers = 0;
  for (auto _ : state) {
    Traffic t(cards);
    t.target = 100'000;
    const double t0 = cpuSeconds();
    for (int c = 0; c < cards; ++c)
      for (int s = 0; s < t.servers; ++s)
        if (s != c / kCardsPerServer) t.send(static_cast<std::uint64_t>(c * t.servers + s));
    while (t.sim.step()) {
    }
    seconds += cpuSeconds() - t0;
    transfers += t.completed;
    state.counters["flows_per_recompute"] =
        static_cast<double>(t.net.flowsRecomputed()) / static_cast<double>(t.net.recomputes());
  }
  state.counters["ns_per_transfer"] = seconds * 1e9 / static_cast<double>(transfers);
}
BENCHMARK(BM_NicAllToAll)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
