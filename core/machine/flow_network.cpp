#include "core/machine/flow_network.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

namespace moe {

int FlowNetwork::addResource(std::string name, double gbps) {
  if (!(gbps > 0)) throw std::invalid_argument("resource " + name + " needs a positive bandwidth");
  resources_.push_back(NetResource{std::move(name), gbpsToBytesPerPs(gbps), gbps});
  capLeft_.push_back(0);
  unfrozenCount_.push_back(0);
  flowsOn_.emplace_back();
  return static_cast<int>(resources_.size()) - 1;
}

void FlowNetwork::start(const std::vector<int>& path, std::int64_t bytes, Action onDone) {
  if (bytes <= 0 || path.empty()) {  // nothing crosses: done now, in event order
    sim_.at(sim_.now(), onDone);
    return;
  }
  int slot;
  if (!freeSlots_.empty()) {
    slot = freeSlots_.back();
    freeSlots_.pop_back();
  } else {
    slot = static_cast<int>(flows_.size());
    flows_.emplace_back();
    newRate_.push_back(0);
  }
  Flow& f = flows_[slot];
  f.path = path;
  f.remaining = static_cast<double>(bytes);
  f.rate = 0;
  f.lastUpdate = sim_.now();
  f.onDone = onDone;
  f.active = true;
  ++f.generation;
  active_.push_back(slot);
  for (int r : path) {
    ++resources_[r].activeFlows;
    flowsOn_[r].push_back(slot);
  }
  requestRecompute();
}

void FlowNetwork::requestRecompute() {
  if (recomputePending_) return;
  recomputePending_ = true;
  sim_.at(sim_.now(), Action{&FlowNetwork::recomputeEvent, this, 0});
}

void FlowNetwork::recomputeEvent(void* self, std::uint64_t) {
  auto* net = static_cast<FlowNetwork*>(self);
  net->recomputePending_ = false;
  net->recompute();
}

void FlowNetwork::flowEvent(void* self, std::uint64_t arg) {
  auto* net = static_cast<FlowNetwork*>(self);
  const int slot = static_cast<int>(arg >> 32);
  const auto gen = static_cast<std::uint32_t>(arg & 0xffffffffu);
  Flow& f = net->flows_[slot];
  if (!f.active || f.generation != gen) return;  // superseded by a rate change
  net->finish(slot);
}

void FlowNetwork::finish(int slot) {
  Flow& f = flows_[slot];
  // Everything left has crossed by now (the event was scheduled for exactly that).
  for (int r : f.path) resources_[r].bytesCarried += f.remaining;
  f.remaining = 0;
  f.active = false;
  ++f.generation;
  for (int r : f.path) {
    --resources_[r].activeFlows;
    auto& on = flowsOn_[r];
    on.erase(std::find(on.begin(), on.end(), slot));
  }
  active_.erase(std::find(active_.begin(), active_.end(), slot));
  freeSlots_.push_back(slot);
  const Action done = f.onDone;
  requestRecompute();
  done();
}

void FlowNetwork::recompute() {
  const Time now = sim_.now();
  ++recomputes_;
  flowsRecomputed_ += active_.size();
  // 1. Progress every active flow to now at its old rate.
  for (int s : active_) {
    Flow& f = flows_[s];
    const double moved = std::min(f.remaining, f.rate * static_cast<double>(now - f.lastUpdate));
    f.remaining -= moved;
    for (int r : f.path) resources_[r].bytesCarried += moved;
    f.lastUpdate = now;
  }
  // 2. Progressive filling over the resources the active flows touch: the resource with
  // the smallest fair share is the bottleneck; its unfrozen flows get that share.
  touched_.clear();
  for (int s : active_) {
    newRate_[s] = -1.0;
    for (int r : flows_[s].path) {
      if (unfrozenCount_[r] == 0) {
        touched_.push_back(r);
        capLeft_[r] = resources_[r].capacity;
      }
      ++unfrozenCount_[r];
    }
  }
  // Lazy min-heap of (fair share, resource): a resource's share only changes when one of
  // its flows freezes, and then it is pushed again; stale entries are skipped on pop.
  // Ties go to the lower resource id, so the fill order is deterministic.
  struct Entry {
    double share;
    int resource;
    bool operator>(const Entry& o) const { return share > o.share || (share == o.share && resource > o.resource); }
  };
  std::vector<Entry> heap;
  heap.reserve(touched_.size());
  for (int r : touched_) heap.push_back({capLeft_[r] / unfrozenCount_[r], r});
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  std::size_t unfrozen = active_.size();
  while (unfrozen > 0 && !heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const Entry top = heap.back();
    heap.pop_back();
    const int bottleneck = top.resource;
    if (unfrozenCount_[bottleneck] == 0 || top.share != capLeft_[bottleneck] / unfrozenCount_[bottleneck])
      continue;  // stale
    const double share = top.share;
    for (int s : flowsOn_[bottleneck]) {
      if (newRate_[s] >= 0) continue;
      newRate_[s] = share;
      --unfrozen;
      for (int r : flows_[s].path) {
        capLeft_[r] = std::max(0.0, capLeft_[r] - share);
        --unfrozenCount_[r];
        if (r != bottleneck && unfrozenCount_[r] > 0) {
          heap.push_back({capLeft_[r] / unfrozenCount_[r], r});
          std::push_heap(heap.begin(), heap.end(), std::greater<>());
        }
      }
    }
  }
  for (int r : rated_) resources_[r].activeRate = 0;
  rated_.clear();
  // 3. Reschedule only the flows whose rate changed; the others' events stay valid.
  for (int s : active_) {
    Flow& f = flows_[s];
    for (int r : f.path) resources_[r].activeRate += newRate_[s];
    if (newRate_[s] == f.rate) continue;
    f.rate = newRate_[s];
    ++f.generation;
    scheduleCompletion(s);
  }
  for (int r : touched_) {
    unfrozenCount_[r] = 0;
    rated_.push_back(r);
  }
}

void FlowNetwork::scheduleCompletion(int slot) {
  const Flow& f = flows_[slot];
  const Time dt = static_cast<Time>(std::ceil(f.remaining / f.rate));
  sim_.at(sim_.now() + std::max<Time>(dt, 0),
          Action{&flowEvent, this, (static_cast<std::uint64_t>(slot) << 32) | f.generation});
}

}  // namespace moe
