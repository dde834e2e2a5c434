#pragma once
// Flow-level bandwidth model (as in SimGrid): a transfer crosses a path of shared
// resources (a core's DMA port, HBM, an HCCS pair, NIC tx/rx). Active transfers share
// each resource max-min fairly, recomputed when transfers start or end.
//
// Only what can change is recomputed. A resource is "slack" when the flows crossing it
// could all run at their own best rate (the smallest capacity on their path) without
// exceeding it: it can never bind, so it couples nobody. A start or end recomputes the
// connected component of flows reachable from the changed paths through non-slack
// resources; every other flow keeps its rate and its completion event. Starts and ends at
// the same instant share one recompute.

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
  int activeFlowCount() const { return activeCount_; }
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
    double best = 0;  // the smallest capacity on the path: it can never go faster
    Time lastUpdate = 0;
    std::uint32_t generation = 0;
    Action onDone;
    bool active = false;
    bool inComponent = false;
  };
  struct ResourceState {
    std::vector<int> flows;   // active flow slots crossing it
    double sumBest = 0;       // sum of `best` over those flows
    double capLeft = 0;       // scratch for the fill
    int unfrozen = 0;         // scratch for the fill
    bool dirty = false;       // on a path that started or ended since the last recompute
    bool wasBinding = false;  // binding-capable before that change
    bool visited = false;     // scratch for the component search
  };
  static void flowEvent(void* self, std::uint64_t arg);
  static void recomputeEvent(void* self, std::uint64_t);
  bool binding(int r) const { return state_[r].sumBest > resources_[r].capacity * (1 + 1e-12); }
  void touch(const std::vector<int>& path);  // marks dirty, remembering the old status
  void requestRecompute();
  void finish(int slot);
  void recompute();
  void progress(Flow& f);
  void scheduleCompletion(int slot);

  Simulator& sim_;
  std::vector<NetResource> resources_;
  std::vector<ResourceState> state_;
  std::vector<Flow> flows_;
  std::vector<int> freeSlots_;
  int activeCount_ = 0;
  std::vector<int> dirty_;     // resources touched since the last recompute
  std::vector<int> newFlows_;  // flows started since the last recompute
  bool recomputePending_ = false;
  std::uint64_t recomputes_ = 0;
  std::uint64_t flowsRecomputed_ = 0;
  // Scratch.
  std::vector<int> component_;
  std::vector<int> touched_;
  std::vector<double> newRate_;  // by slot
};

}  // namespace moe
