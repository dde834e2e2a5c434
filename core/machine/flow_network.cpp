#include "core/machine/flow_network.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>

#include "core/machine/share_bound.h"

namespace moe {

namespace {
// Relative slack for "saturated" and "no flow runs faster": the fill's rounding is ~1e-15,
// far below it, and the rates it lets through differ from exact by less than 1e-9.
constexpr double kEps = 1e-11;
// How far below its capacity a resource's headroom bound must stay for it to be left out
// of a solve: far above kEps and the rounding of the rates (the loads the fill starts from
// are running sums, off by some 1e-13), so such a resource is never saturated.
constexpr double kHeadroomSlack = 1e-9;
}  // namespace

int FlowNetwork::addResource(std::string name, double gbps) {
  if (!(gbps > 0)) throw std::invalid_argument("resource " + name + " needs a positive bandwidth");
  NetResource& res = resources_.emplace_back();
  res.capacity = gbpsToBytesPerPs(gbps);
  res.gbps = gbps;
  res.name = std::move(name);
  state_.emplace_back().boundUnits =
      static_cast<std::int64_t>(std::ceil(res.capacity / kBoundUnit));
  canBind_.push_back(solveAll_ ? 1 : 0);  // no flows yet: nothing to saturate it
  return static_cast<int>(resources_.size()) - 1;
}

std::vector<FlowNetwork::FlowView> FlowNetwork::activeFlows() const {
  std::vector<FlowView> out;
  for (const Flow& f : flows_)
    if (f.active)
      out.push_back({std::vector<int>(f.path.begin(), f.path.begin() + f.hops), f.rate});
  return out;
}

void FlowNetwork::touch(const Flow& f) {
  for (int i = 0; i < f.hops; ++i) {
    const int r = f.path[i];
    // A resource with headroom was saturated by nobody: a change there moves no capacity
    // any flow was bottlenecked on (and the check reads it as unsaturated, dirty or not).
    if (!canBind_[r]) continue;
    ResourceState& s = state_[r];
    if (s.dirty) continue;
    s.dirty = true;
    // Only the flows bottlenecked here can take or give the capacity that moves
    // (recompute() starts from them).
    s.fastestBefore = bottleneckRate(r);
    dirty_.push_back(r);
  }
}

double FlowNetwork::bottleneckRate(int r) const {
  if (resources_[r].activeRate < resources_[r].capacity * (1 - kEps)) return -1;
  double fastest = 0;
  for (const Member& m : state_[r].flows) fastest = std::max(fastest, m.rate);
  return fastest;
}

void FlowNetwork::addBound(const int* path, int hops, int narrowestId, int sign) {
  const double narrowestCapacity = resources_[narrowestId].capacity;
  const std::int64_t narrowest = state_[narrowestId].boundUnits;
  for (int i = 0; i < hops; ++i) {
    const int r = path[i];
    ResourceState& st = state_[r];
    const double full = resources_[r].capacity * (1 - kHeadroomSlack);
    if (narrowestCapacity >= full) {
      // The flow's narrowest resource alone can fill this one (it is this one, or as fast):
      // a count is enough, and the pair table stays small (no NIC-to-NIC pairs).
      st.fillers += sign;
    } else {
      int& n = narrowestOn_[{r, narrowestId}];
      n += sign;
      if (n == (sign > 0 ? 1 : 0)) st.bound += sign * narrowest;  // its first in, or last out
    }
    canBind_[r] = solveAll_ || st.fillers > 0 || static_cast<double>(st.bound) * kBoundUnit >= full;
  }
}

int FlowNetwork::takeSlot() {
  if (!freeSlots_.empty()) {
    const int slot = freeSlots_.back();
    freeSlots_.pop_back();
    return slot;
  }
  const int slot = static_cast<int>(flows_.size());
  flows_.emplace_back();
  if (perFlow_) flows_.back().end = sim_.newTimer();
  newRate_.push_back(0);
  inSet_.push_back(0);
  frozenAt_.push_back(0);
  classes_.reserve(static_cast<int>(flows_.size()), static_cast<int>(cls_.size()));
  return slot;
}

int FlowNetwork::addFlow(const FlowPath& path, std::int64_t bytes, Action onDone, double rate,
                         bool handedOver) {
  const int slot = takeSlot();
  Flow& f = flows_[slot];
  f.hops = path.size();
  std::copy(path.begin(), path.end(), f.path.begin());
  if (!handedOver) touch(f);  // before its bound: only resources others could saturate
  f.narrowest = f.path[0];
  for (int i = 1; i < f.hops; ++i)
    if (resources_[f.path[i]].capacity < resources_[f.narrowest].capacity) f.narrowest = f.path[i];
  if (!handedOver) addBound(f.path.data(), f.hops, f.narrowest, +1);  // else the ended one's
  f.remaining = static_cast<double>(bytes);
  f.rate = rate;
  f.segRate = 0;
  f.logPos = 0;
  f.lastUpdate = sim_.now();
  f.onDone = onDone;
  f.active = true;
  ++f.generation;
  ++activeCount_;
  for (int i = 0; i < f.hops; ++i) {
    const int r = f.path[i];
    ++resources_[r].activeFlows;
    f.slotOn[i] = static_cast<int>(state_[r].flows.size());
    state_[r].flows.push_back(Member{slot, rate});
    if (rate != 0) addRate(r, rate);
  }
  return slot;
}

void FlowNetwork::start(const FlowPath& path, std::int64_t bytes, Action onDone) {
  if (bytes <= 0 || path.empty()) {  // nothing crosses: done now, in event order
    sim_.at(sim_.now(), onDone);
    return;
  }
  if (canHandOver(path)) {
    handOver(path, bytes, onDone);
    return;
  }
  dropEndedBound();
  ended_.valid = false;  // only the first start of a completion can take its place
  const int slot = addFlow(path, bytes, onDone, 0.0, false);
  newFlows_.push_back(slot);
  requestRecompute();
}

void FlowNetwork::requestRecompute() {
  if (recomputePending_) return;
  recomputePending_ = true;
  Time at = sim_.now();
  if (minInterval_ > 0) at = std::max(at, lastRecompute_ + minInterval_);
  sim_.at(at, Action{&FlowNetwork::recomputeEvent, this, 0});
}

void FlowNetwork::recomputeEvent(void* self, std::uint64_t) {
  auto* net = static_cast<FlowNetwork*>(self);
  net->recomputePending_ = false;
  net->lastRecompute_ = net->sim_.now();
  // Nothing left to solve: every change was a handover, or touched only resources with
  // headroom.
  if (net->dirty_.empty() && net->newFlows_.empty()) return;
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

double FlowNetwork::advance(Flow& f, double rate, Time to) {
  const double moved = std::min(f.remaining, rate * static_cast<double>(to - f.lastUpdate));
  f.remaining -= moved;
  f.lastUpdate = to;
  return moved;
}

void FlowNetwork::progress(Flow& f) {
  credit(f, advance(f, f.rate, sim_.now()));
}

void FlowNetwork::classEvent(void* self, std::uint64_t cls) {
  auto* net = static_cast<FlowNetwork*>(self);
  net->finish(net->cls_[cls].armed);
}

void FlowNetwork::finish(int slot) {
  Flow& f = flows_[slot];
  ended_.valid = true;
  ended_.dirtyFrom = dirty_.size();
  ended_.path.clear();
  for (int i = 0; i < f.hops; ++i) ended_.path.push_back(f.path[i]);
  ended_.rate = f.rate;
  ended_.cls = perFlow_ ? FlowClasses::kNone : classes_.classOf(slot);
  ended_.frozenAt = frozenAt_[slot];
  ended_.narrowest = f.narrowest;
  touch(f);
  // Its headroom bound goes when the completion has run, or at its first start: a
  // handover keeps it for the next transfer on the path (out and back in is no change).
  ended_.boundHeld = true;
  if (!perFlow_) catchUp(slot);
  // Everything left has crossed by now (the event was scheduled for exactly that).
  for (int i = 0; i < f.hops; ++i) {
    const int r = f.path[i];
    resources_[r].bytesCarried += f.remaining;
    --resources_[r].activeFlows;
    // Swap-remove from the resource's list, telling the moved flow where it now sits.
    auto& on = state_[r].flows;
    const int moved = on.back().slot;
    on[f.slotOn[i]] = on.back();
    Flow& m = flows_[moved];
    for (int j = 0; j < m.hops; ++j)
      if (m.path[j] == r) m.slotOn[j] = f.slotOn[i];
    on.pop_back();
    addRate(r, -f.rate);
    if (on.empty()) resources_[r].activeRate = 0;  // no drift survives an idle resource
  }
  f.remaining = 0;
  f.rate = 0;
  f.active = false;
  ++f.generation;
  --activeCount_;
  freeSlots_.push_back(slot);
  if (!perFlow_) {  // the class's next member to finish takes its timer, after the completion
    const int c = classes_.classOf(slot);
    classes_.leave(slot, sim_.now());
    ended_.retimeClass = c;
  }
  const Action done = f.onDone;
  requestRecompute();
  struct Forget {  // after the completion, even one that throws, nothing can take its place
    Ended& ended;
    ~Forget() { ended.valid = false; }
  } forget{ended_};
  done();
  dropEndedBound();
  // Nothing runs in between that reads the timer (no event pops, no sequence number is
  // taken by retime()), so re-arming it now is what re-arming it at the end would have
  // been; a handover's join has done it already.
  if (ended_.retimeClass >= 0) retime(std::exchange(ended_.retimeClass, -1));
}

void FlowNetwork::dropEndedBound() {
  if (!ended_.boundHeld) return;
  ended_.boundHeld = false;
  addBound(ended_.path.begin(), ended_.path.size(), ended_.narrowest, -1);
}

bool FlowNetwork::canHandOver(const FlowPath& path) const {
  if (!ended_.valid || !(ended_.rate > 0) ||
      !std::equal(path.begin(), path.end(), ended_.path.begin(), ended_.path.end()))
    return false;
  if (perFlow_) return true;
  // The class it left is not given back (even if its end emptied it) before the completion
  // has run: see finish().
  const int c = ended_.cls;
  return c != FlowClasses::kNone && classes_.rate(c) == ended_.rate;
}

// The new transfer takes the place of the one that ended in this completion: the same path,
// so the same max-min rates for every flow. What the end changed is put back: its
// resources' change marks, headroom bounds and loads; the flow joins the ended one's class
// at its rate, with the place among equal-time events a timer armed now would take.
void FlowNetwork::handOver(const FlowPath& path, std::int64_t bytes, Action onDone) {
  ended_.valid = false;
  ended_.boundHeld = false;  // the new transfer's now
  ++handovers_;
  for (std::size_t k = ended_.dirtyFrom; k < dirty_.size(); ++k) state_[dirty_[k]].dirty = false;
  dirty_.resize(ended_.dirtyFrom);
  const double rate = ended_.rate;
  const int slot = addFlow(path, bytes, onDone, rate, true);
  Flow& f = flows_[slot];
  frozenAt_[slot] = ended_.frozenAt;
  if (perFlow_) {
    scheduleCompletion(slot);
    return;
  }
  const int c = ended_.cls;
  f.segRate = rate;
  f.seq = sim_.reserveSeq();
  f.logPos = cls_[c].log.size();
  classes_.join(c, slot, sim_.now(), f.remaining);
  retime(c);
  if (ended_.retimeClass == c) ended_.retimeClass = -1;  // its one re-arming
}

void FlowNetwork::addToSet(int slot) {
  Flow& f = flows_[slot];
  if (!f.active || inSet_[slot]) return;
  inSet_[slot] = 1;
  set_.push_back(slot);
}

// The rates read here are the old ones (a recompute writes the new ones only when it
// applies them), so a resource's bottlenecked flows are the same at every visit: one visit
// per recompute is enough.
void FlowNetwork::closeResource(int r, double rate) {
  ResourceState& st = state_[r];
  if (st.closed) return;
  st.closed = true;
  st.closedAbove = rate;
  closed_.push_back(r);
  if (rate < 0) return;  // unsaturated: nobody's bottleneck
  for (const Member& m : st.flows)
    if (m.rate >= rate * (1 - kEps)) addToSet(m.slot);
}

void FlowNetwork::closeOverBottlenecks(std::size_t from) {
  for (std::size_t k = from; k < set_.size(); ++k) {  // set_ grows as it goes
    const Flow& f = flows_[set_[k]];
    for (int i = 0; i < f.hops; ++i) {
      const int r = f.path[i];
      // A dirty resource was closed over by recompute(), with its rates before the change.
      if (canBind_[r] && !state_[r].closed) closeResource(r, bottleneckRate(r));
    }
  }
}

void FlowNetwork::setRate(Flow& f, double rate) {
  f.rate = rate;
  for (int i = 0; i < f.hops; ++i) state_[f.path[i]].flows[f.slotOn[i]].rate = rate;
}

void FlowNetwork::addRate(int r, double delta) {
  NetResource& res = resources_[r];
  ResourceState& st = state_[r];
  res.activeRate += delta;
  // The running sum drifts by a rounding per update; summing afresh now and then keeps the
  // drift some 1e-13 of the capacity, far below the saturation slack kEps.
  if (++st.sinceExact < kExactEvery) return;
  st.sinceExact = 0;
  double sum = 0;
  for (const Member& m : st.flows) sum += m.rate;
  res.activeRate = sum;  // callers update the members first
}

double FlowNetwork::current(int slot) const {
  return inSet_[slot] ? newRate_[slot] : flows_[slot].rate;
}

void FlowNetwork::recompute() {
  ++recomputes_;
  // The working set: new flows, and the flows bottlenecked on a resource that was saturated
  // before a flow ended or started on it (they may speed up or must make room), closed over
  // the saturated resources they cross (see the header). Slower flows there had their
  // bottleneck elsewhere; if they must move, the check adds them.
  set_.clear();
  for (int s : newFlows_) addToSet(s);
  for (int r : dirty_) closeResource(r, state_[r].fastestBefore);
  newFlows_.clear();
  closeOverBottlenecks(0);
  if (!set_.empty()) {
    for (;;) {
      fill();
      const std::size_t filled = set_.size();
      if (checkBottlenecks()) break;
      closeOverBottlenecks(filled);
    }
    // Safety net: a max-min rate is never zero; if rounding ever left one, solve it all.
    bool stalled = false;
    for (int s : set_) stalled = stalled || !(newRate_[s] > 0);
    if (stalled) {
      for (int s = 0; s < static_cast<int>(flows_.size()); ++s) addToSet(s);
      fill();
    }
  }
  for (int r : dirty_) state_[r].dirty = false;
  dirty_.clear();
  for (int r : closed_) state_[r].closed = false;
  closed_.clear();

  if (!perFlow_) {
    applyByClass();
    set_.clear();
    return;
  }
  // Apply: only flows whose rate changed get progressed and a new completion event.
  for (int s : set_) {
    Flow& f = flows_[s];
    inSet_[s] = 0;
    if (newRate_[s] == f.rate) continue;
    progress(f);
    const double delta = newRate_[s] - f.rate;
    setRate(f, newRate_[s]);
    for (int i = 0; i < f.hops; ++i) addRate(f.path[i], delta);
    ++f.generation;
    scheduleCompletion(s);
  }
  set_.clear();
}

// Progressive filling of the working set; every other flow keeps its rate and the
// capacity it uses is set aside. Only the working set's flows and paths are visited: a
// resource's load comes from its running sum, not from a scan of its flows.
void FlowNetwork::fill() {
  flowsRecomputed_ += set_.size();
  fillResources_.clear();
  for (int s : set_) {
    const Flow& f = flows_[s];
    newRate_[s] = -1.0;
    for (int i = 0; i < f.hops; ++i) {
      if (!canBind_[f.path[i]]) continue;  // never anyone's bottleneck (see the header)
      ResourceState& st = state_[f.path[i]];
      if (!st.inFill) {
        st.inFill = true;
        st.setOn.clear();
        st.left = 0;
        fillResources_.push_back(f.path[i]);
      }
      st.setOn.push_back(s);
      st.left += f.rate;  // the working set's old rates, handed back below
    }
  }
  heap_.clear();
  for (int r : fillResources_) {
    ResourceState& st = state_[r];
    st.inFill = false;
    st.left = std::max(0.0, resources_[r].capacity - (resources_[r].activeRate - st.left));
    st.unfrozen = static_cast<int>(st.setOn.size());
    st.key = st.left / st.unfrozen;
    heap_.push_back({st.key, r});
  }
  // Min-heap of (fair share, resource); ties go to the lower id (deterministic). Freezing a
  // flow at the smallest share raises the share of its other resources (left - share over
  // unfrozen - 1), so a resource's key stays a lower bound of its share: a key found out of
  // date at the top is pushed back with the current share. The pops come out in the order
  // of a heap updated on every freeze, without a push per (frozen flow, resource) for
  // resources that never become the bottleneck (HBM, DMA ports). Only when rounding makes
  // a share drop below its key (a tie by an ulp) does it get a fresh entry, once the
  // bottleneck's flows are all frozen: no pop comes in between, and its earlier entries
  // are stale by then (with equally loaded NICs, 85% of such drops were a resource's
  // second or later in one bottleneck's freeze).
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
  std::size_t unfrozen = set_.size();
  while (unfrozen > 0 && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const HeapEntry top = heap_.back();
    heap_.pop_back();
    const int b = top.resource;
    ResourceState& bs = state_[b];
    if (bs.unfrozen == 0 || top.share != bs.key) continue;  // superseded entry
    const double share = bs.left / bs.unfrozen;
    if (share != bs.key) {  // raised since it was pushed
      bs.key = share;
      heap_.push_back({share, b});
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
      continue;
    }
    // Every unfrozen flow of the bottleneck freezes at its share.
    for (int s : bs.setOn) {
      if (newRate_[s] >= 0) continue;
      newRate_[s] = share;
      frozenAt_[s] = b;
      --unfrozen;
      const Flow& f = flows_[s];
      for (int i = 0; i < f.hops; ++i) {
        if (!canBind_[f.path[i]]) continue;
        ResourceState& rs = state_[f.path[i]];
        rs.left = std::max(0.0, rs.left - share);
        if (--rs.unfrozen == 0) continue;
        // Its share rose, as it should; only a rounding can lower it below its key. Most
        // shares clear the key by more than any rounding and skip the division (which was
        // a third of this loop's time).
        const double unfrozenCount = rs.unfrozen;
        if (shareIsAtLeast(rs.left, unfrozenCount, rs.key)) continue;
        if (const double raised = rs.left / unfrozenCount; raised < rs.key) {  // rounding
          rs.key = raised;
          if (!rs.lowered) {
            rs.lowered = true;
            lowered_.push_back(f.path[i]);
          }
        }
      }
    }
    for (int r : lowered_) {
      ResourceState& rs = state_[r];
      rs.lowered = false;
      if (rs.unfrozen == 0) continue;
      heap_.push_back({rs.key, r});
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
    }
    lowered_.clear();
  }
}

// A resource's load with the working set at its new rates: the running sum plus the
// working set's changes (summed once per check in checkBottlenecks).
void FlowNetwork::measure(int r) {
  ResourceState& st = state_[r];
  if (st.measured) return;
  st.measured = true;
  measured_.push_back(r);
  st.load = resources_[r].activeRate + st.delta;
  st.fastest = -1;  // not yet known: only a saturated resource needs it
}

double FlowNetwork::fastest(int r) {
  ResourceState& st = state_[r];
  if (st.fastest < 0) {
    // A closed resource's flows outside the working set run slower than its old
    // bottleneck rate. If one of its set flows is at least as fast now, the fastest is
    // among them: the short list, not the resource's whole one.
    if (st.closed && st.closedAbove >= 0) {
      double fastestInSet = 0;
      for (const int s : st.setOn) fastestInSet = std::max(fastestInSet, newRate_[s]);
      if (fastestInSet >= st.closedAbove) return st.fastest = fastestInSet;
    }
    st.fastest = 0;
    for (const Member& m : st.flows)
      st.fastest = std::max(st.fastest, inSet_[m.slot] ? newRate_[m.slot] : m.rate);
  }
  return st.fastest;
}

bool FlowNetwork::bottleneckOn(int r, double v) {
  measure(r);
  return state_[r].load >= resources_[r].capacity * (1 - kEps) && v >= fastest(r) * (1 - kEps);
}

bool FlowNetwork::hasBottleneck(int slot) {
  const Flow& f = flows_[slot];
  const double v = current(slot);
  // A flow the fill just froze is most likely bottlenecked where it froze: asked first, it
  // spares measuring its other resources (the answer is the same, whichever is asked first).
  const int frozenAt = inSet_[slot] && newRate_[slot] >= 0 ? frozenAt_[slot] : -1;
  if (frozenAt >= 0 && bottleneckOn(frozenAt, v)) return true;
  for (int i = 0; i < f.hops; ++i) {
    const int r = f.path[i];
    if (!canBind_[r] || r == frozenAt) continue;  // never saturated, or asked already
    if (bottleneckOn(r, v)) return true;
  }
  return false;
}

// The bottleneck rule on the working set. A set flow without a bottleneck is owed
// capacity that outside flows hold: those that run faster on its resources join.
//
// Outside flows need no check: a flow can lose its bottleneck only where a rate changed,
// and the set is closed over the saturated resources it crosses (closeOverBottlenecks), so
// every flow bottlenecked on one of them (running at its fastest old rate) is in the set.
// An outside flow's bottlenecks are all resources the set does not cross: their loads and
// fastest flows are as before. A dirty resource's bottlenecked flows joined in recompute().
bool FlowNetwork::checkBottlenecks() {
  grow_.clear();
  measured_.clear();
  // The working set's rate changes, on the resources fill() just listed with their
  // working-set flows (every other resource's delta stays 0).
  for (int r : fillResources_)
    for (int s : state_[r].setOn) state_[r].delta += newRate_[s] - flows_[s].rate;
  const std::size_t setSize = set_.size();
  for (std::size_t k = 0; k < setSize; ++k) {
    const int s = set_[k];
    if (hasBottleneck(s)) continue;
    const Flow& f = flows_[s];
    const double v = newRate_[s];
    for (int i = 0; i < f.hops; ++i)
      for (const Member& m : state_[f.path[i]].flows)
        if (!inSet_[m.slot] && m.rate > v * (1 + kEps)) grow_.push_back(m.slot);
  }
  for (int r : measured_) state_[r].measured = false;
  for (int r : fillResources_) state_[r].delta = 0;
  for (int g : grow_) addToSet(g);
  return set_.size() == setSize;
}

void FlowNetwork::scheduleCompletion(int slot) {
  const Flow& f = flows_[slot];
  // Checked: a starved resource (rate near zero) must stop the run, not wrap the time.
  const Time dt = checkedPs(f.remaining / f.rate);
  ++timersArmed_;
  // Re-arming the flow's timer drops its old end from the queue: a flow is re-rated many
  // times, and dead ends would otherwise crowd the queue.
  sim_.setTimer(f.end, checkedAdd(sim_.now(), dt),
                Action{&flowEvent, this, (static_cast<std::uint64_t>(slot) << 32) | f.generation});
}

}  // namespace moe
