#include "bench/simgrid_peer/flow_replay.h"

#include <chrono>
#include <ctime>

#include "core/engine/simulator.h"
#include "core/machine/flow_network.h"

namespace peer {

namespace {

struct Replay {
  explicit Replay(const TransferTrace& t) : trace(t) {}
  const TransferTrace& trace;
  moe::Simulator sim;
  moe::FlowNetwork net{sim};
  std::vector<moe::FlowPath> paths;
  std::vector<moe::Time> land;

  static void start(void* self, std::uint64_t i) {
    auto& r = *static_cast<Replay*>(self);
    r.net.start(r.paths[i], r.trace.transfers[i].bytes, moe::Action{&Replay::crossed, self, i});
  }
  static void crossed(void* self, std::uint64_t i) {
    auto& r = *static_cast<Replay*>(self);
    r.land[i] = r.sim.now() + r.trace.transfers[i].latencyPs;
  }
};

}  // namespace

ReplayResult replayOnFlowNetwork(const TransferTrace& trace) {
  Replay r(trace);
  for (const Resource& res : trace.resources) r.net.addResource(res.name, res.bytesPerSecond / 1e9);
  const std::size_t n = trace.transfers.size();
  r.paths.reserve(n);
  for (const Transfer& t : trace.transfers) r.paths.emplace_back(t.path);
  r.land.assign(n, -1);
  const auto begin = std::chrono::steady_clock::now();
  const double cpuBegin = cpuSeconds();
  for (std::size_t i = 0; i < n; ++i)
    r.sim.at(trace.transfers[i].startPs, moe::Action{&Replay::start, &r, i});
  r.sim.run();
  ReplayResult out;
  out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  out.cpuSeconds = cpuSeconds() - cpuBegin;
  out.landSeconds.reserve(n);
  for (moe::Time t : r.land) out.landSeconds.push_back(static_cast<double>(t) * 1e-12);
  return out;
}

}  // namespace peer
