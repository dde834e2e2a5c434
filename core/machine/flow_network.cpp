#include "core/machine/flow_network.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace moe {

int FlowNetwork::addResource(std::string name, double gbps) {
  if (!(gbps > 0)) throw std::invalid_argument("resource " + name + " needs a positive bandwidth");
  resources_.push_back(NetResource{std::move(name), gbpsToBytesPerPs(gbps), gbps});
  capLeft_.push_back(0);
  unfrozenCount_.push_back(0);
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
  for (int r : path) ++resources_[r].activeFlows;
  recompute();
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
  for (int r : f.path) --resources_[r].activeFlows;
  active_.erase(std::find(active_.begin(), active_.end(), slot));
  freeSlots_.push_back(slot);
  const Action done = f.onDone;
  recompute();
  done();
}

void FlowNetwork::recompute() {
  const Time now = sim_.now();
  // 1. Progress every active flow to now at its old rate.
  for (int s : active_) {
    Flow& f = flows_[s];
    const double moved = std::min(f.remaining, f.rate * static_cast<double>(now - f.lastUpdate));
    f.remaining -= moved;
    for (int r : f.path) resources_[r].bytesCarried += moved;
    f.lastUpdate = now;
  }
  // 2. Progressive filling over the resources the active flows touch.
  touched_.clear();
  for (int s : active_)
    for (int r : flows_[s].path) {
      if (unfrozenCount_[r] == 0) {
        touched_.push_back(r);
        capLeft_[r] = resources_[r].capacity;
      }
      ++unfrozenCount_[r];
    }
  std::vector<double> newRate(active_.size(), -1.0);
  std::size_t unfrozen = active_.size();
  while (unfrozen > 0) {
    int bottleneck = -1;
    double share = std::numeric_limits<double>::infinity();
    for (int r : touched_) {
      if (unfrozenCount_[r] == 0) continue;
      const double s = capLeft_[r] / unfrozenCount_[r];
      if (s < share) share = s, bottleneck = r;
    }
    if (bottleneck < 0) break;
    for (std::size_t i = 0; i < active_.size(); ++i) {
      if (newRate[i] >= 0) continue;
      const Flow& f = flows_[active_[i]];
      if (std::find(f.path.begin(), f.path.end(), bottleneck) == f.path.end()) continue;
      newRate[i] = share;
      --unfrozen;
      for (int r : f.path) {
        capLeft_[r] = std::max(0.0, capLeft_[r] - share);
        --unfrozenCount_[r];
      }
    }
  }
  for (int r : touched_) unfrozenCount_[r] = 0;
  for (auto& res : resources_) res.activeRate = 0;
  // 3. Reschedule only the flows whose rate changed; the others' events stay valid.
  for (std::size_t i = 0; i < active_.size(); ++i) {
    Flow& f = flows_[active_[i]];
    for (int r : f.path) resources_[r].activeRate += newRate[i];
    if (newRate[i] == f.rate) continue;
    f.rate = newRate[i];
    ++f.generation;
    scheduleCompletion(active_[i]);
  }
}

void FlowNetwork::scheduleCompletion(int slot) {
  const Flow& f = flows_[slot];
  const Time dt = static_cast<Time>(std::ceil(f.remaining / f.rate));
  sim_.at(sim_.now() + std::max<Time>(dt, 0),
          Action{&flowEvent, this, (static_cast<std::uint64_t>(slot) << 32) | f.generation});
}

}  // namespace moe
