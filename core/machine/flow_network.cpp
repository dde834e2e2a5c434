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
  state_.emplace_back();
  return static_cast<int>(resources_.size()) - 1;
}

void FlowNetwork::touch(const std::vector<int>& path) {
  for (int r : path) {
    ResourceState& s = state_[r];
    if (s.dirty) continue;
    s.dirty = true;
    s.wasBinding = binding(r);
    dirty_.push_back(r);
  }
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
  touch(path);
  Flow& f = flows_[slot];
  f.path = path;
  f.remaining = static_cast<double>(bytes);
  f.rate = 0;
  f.best = std::numeric_limits<double>::infinity();
  for (int r : path) f.best = std::min(f.best, resources_[r].capacity);
  f.lastUpdate = sim_.now();
  f.onDone = onDone;
  f.active = true;
  ++f.generation;
  ++activeCount_;
  for (int r : path) {
    ++resources_[r].activeFlows;
    state_[r].flows.push_back(slot);
    state_[r].sumBest += f.best;
  }
  newFlows_.push_back(slot);
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

void FlowNetwork::progress(Flow& f) {
  const double moved =
      std::min(f.remaining, f.rate * static_cast<double>(sim_.now() - f.lastUpdate));
  f.remaining -= moved;
  for (int r : f.path) resources_[r].bytesCarried += moved;
  f.lastUpdate = sim_.now();
}

void FlowNetwork::finish(int slot) {
  Flow& f = flows_[slot];
  touch(f.path);
  // Everything left has crossed by now (the event was scheduled for exactly that).
  for (int r : f.path) {
    resources_[r].bytesCarried += f.remaining;
    resources_[r].activeRate -= f.rate;
    --resources_[r].activeFlows;
    auto& on = state_[r].flows;
    on.erase(std::find(on.begin(), on.end(), slot));
    state_[r].sumBest -= f.best;
  }
  f.remaining = 0;
  f.active = false;
  ++f.generation;
  --activeCount_;
  freeSlots_.push_back(slot);
  const Action done = f.onDone;
  requestRecompute();
  done();
}

void FlowNetwork::recompute() {
  ++recomputes_;
  // 1. The component: flows reachable from the changed paths through resources that can
  //    bind (or could before the change), plus every new flow.
  component_.clear();
  touched_.clear();
  std::vector<int> queue;
  auto addFlow = [&](int s) {
    Flow& f = flows_[s];
    if (!f.active || f.inComponent) return;
    f.inComponent = true;
    component_.push_back(s);
    for (int r : f.path)
      if (!state_[r].visited && binding(r)) {
        state_[r].visited = true;
        touched_.push_back(r);
        queue.push_back(r);
      }
  };
  for (int r : dirty_) {
    ResourceState& s = state_[r];
    if ((binding(r) || s.wasBinding) && !s.visited) {
      s.visited = true;
      touched_.push_back(r);
      queue.push_back(r);
    }
  }
  for (int s : newFlows_) addFlow(s);
  while (!queue.empty()) {
    const int r = queue.back();
    queue.pop_back();
    for (int s : state_[r].flows) addFlow(s);
  }
  for (int r : dirty_) state_[r].dirty = false;
  dirty_.clear();
  newFlows_.clear();
  flowsRecomputed_ += component_.size();

  // 2. Progressive filling over the component. Every resource its flows cross takes part;
  //    capacity used by flows outside the component (on slack resources) is set aside.
  for (int s : component_)
    for (int r : flows_[s].path)
      if (!state_[r].visited) {
        state_[r].visited = true;
        touched_.push_back(r);
      }
  for (int r : touched_) {
    ResourceState& st = state_[r];
    st.capLeft = resources_[r].capacity;
    st.unfrozen = 0;
    for (int s : st.flows) {
      if (flows_[s].inComponent)
        ++st.unfrozen;
      else
        st.capLeft -= flows_[s].rate;
    }
    st.capLeft = std::max(0.0, st.capLeft);
  }
  for (int s : component_) newRate_[s] = -1.0;
  // Lazy min-heap of (fair share, resource); ties go to the lower id (deterministic).
  struct Entry {
    double share;
    int resource;
    bool operator>(const Entry& o) const {
      return share > o.share || (share == o.share && resource > o.resource);
    }
  };
  std::vector<Entry> heap;
  heap.reserve(touched_.size());
  for (int r : touched_)
    if (state_[r].unfrozen > 0) heap.push_back({state_[r].capLeft / state_[r].unfrozen, r});
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  std::size_t unfrozen = component_.size();
  while (unfrozen > 0 && !heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const Entry top = heap.back();
    heap.pop_back();
    const int b = top.resource;
    ResourceState& bs = state_[b];
    if (bs.unfrozen == 0 || top.share != bs.capLeft / bs.unfrozen) continue;  // stale
    for (int s : bs.flows) {
      if (!flows_[s].inComponent || newRate_[s] >= 0) continue;
      newRate_[s] = top.share;
      --unfrozen;
      for (int r : flows_[s].path) {
        ResourceState& rs = state_[r];
        rs.capLeft = std::max(0.0, rs.capLeft - top.share);
        --rs.unfrozen;
        if (r != b && rs.unfrozen > 0) {
          heap.push_back({rs.capLeft / rs.unfrozen, r});
          std::push_heap(heap.begin(), heap.end(), std::greater<>());
        }
      }
    }
  }

  // 3. Apply: only flows whose rate changed get progressed and a new completion event.
  for (int s : component_) {
    Flow& f = flows_[s];
    f.inComponent = false;
    if (newRate_[s] == f.rate) continue;
    progress(f);
    for (int r : f.path) resources_[r].activeRate += newRate_[s] - f.rate;
    f.rate = newRate_[s];
    ++f.generation;
    scheduleCompletion(s);
  }
  for (int r : touched_) state_[r].visited = false;
}

void FlowNetwork::scheduleCompletion(int slot) {
  const Flow& f = flows_[slot];
  // Checked: a starved resource (rate near zero) must stop the run, not wrap the time.
  const Time dt = checkedPs(f.remaining / f.rate);
  sim_.at(checkedAdd(sim_.now(), dt),
          Action{&flowEvent, this, (static_cast<std::uint64_t>(slot) << 32) | f.generation});
}

}  // namespace moe
