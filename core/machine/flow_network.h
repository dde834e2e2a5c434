#pragma once
// Flow-level bandwidth model (as in SimGrid): a transfer crosses a path of shared
// resources (a core's DMA port, HBM, an HCCS pair, NIC tx/rx). Active transfers share
// each resource max-min fairly; rates are recomputed only when a transfer starts or ends,
// and only transfers whose rate changed get a new completion event.

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/simulator.h"

namespace moe {

struct NetResource {
  std::string name;
  double capacity;  // bytes per picosecond
  double gbps;
  // Observation: bytes that finished crossing, and the summed rate of active flows.
  double bytesCarried = 0;
  double activeRate = 0;
  int activeFlows = 0;
};

class FlowNetwork {
 public:
  explicit FlowNetwork(Simulator& sim) : sim_(sim) {}

  int addResource(std::string name, double gbps);
  const NetResource& resource(int id) const { return resources_[id]; }
  int resourceCount() const { return static_cast<int>(resources_.size()); }
  int activeFlowCount() const { return static_cast<int>(active_.size()); }
  // Engine statistics: how often rates were recomputed and over how many flows in total.
  std::uint64_t recomputes() const { return recomputes_; }
  std::uint64_t flowsRecomputed() const { return flowsRecomputed_; }

  // Starts moving `bytes` over `path` now; `onDone` runs when the last byte has crossed.
  // Per-hop latency is the caller's business (it is fixed, not shared).
  void start(const std::vector<int>& path, std::int64_t bytes, Action onDone);

 private:
  struct Flow {
    std::vector<int> path;
    double remaining = 0;
    double rate = 0;
    Time lastUpdate = 0;
    std::uint32_t generation = 0;
    Action onDone;
    bool active = false;
  };
  static void flowEvent(void* self, std::uint64_t arg);
  static void recomputeEvent(void* self, std::uint64_t);
  // Flows starting or ending at the same instant share one recompute: it runs as an event
  // at the current time, after the events already queued for it.
  void requestRecompute();
  void finish(int slot);
  void recompute();
  void scheduleCompletion(int slot);

  Simulator& sim_;
  std::vector<NetResource> resources_;
  std::vector<Flow> flows_;
  std::vector<int> freeSlots_;
  std::vector<int> active_;  // slots in start order: keeps the fill order deterministic
  // Active flow slots crossing each resource, so a bottleneck freezes only its own flows.
  std::vector<std::vector<int>> flowsOn_;
  // Scratch for recompute().
  std::vector<double> capLeft_;
  std::vector<int> unfrozenCount_;
  std::vector<int> touched_;
  std::vector<int> rated_;  // resources whose activeRate is non-zero
  std::vector<double> newRate_;  // by slot
  bool recomputePending_ = false;
  std::uint64_t recomputes_ = 0;
  std::uint64_t flowsRecomputed_ = 0;
};

}  // namespace moe
