// Class timing for FlowNetwork (see flow_network.h, "Completion timers go by bottleneck
// class"): a solve's new rates applied by class, a member's bytes left replayed from its
// class's rate log, and each class's one timer set for the member that ends first.

#include <cstdint>
#include <vector>

#include "core/machine/flow_network.h"

namespace moe {

// The solve's new rates, applied by class. Every flow whose rate changes takes, in the
// working set's order, the place in the order of equal-time events that re-arming its own
// timer would take. The flows that froze at one resource's share move to one class: a
// class all of whose members froze there keeps them and takes the new rate once (one log
// entry, one timer re-armed); the others leave their classes for it, or for a new class
// if none qualifies. Flows whose rate stays stay where they are, untouched.
void FlowNetwork::applyByClass() {
  ++epoch_;
  const Time now = sim_.now();
  writeNewRates();
  countClassChanges();
  moveWholeClasses(now);
  regroupChanged(now);
  for (int c : touchedClasses_) {
    cls_[c].touched = false;
    retime(c);
  }
  touchedClasses_.clear();
}

void FlowNetwork::writeNewRates() {
  changed_.clear();
  for (int s : set_) {
    Flow& f = flows_[s];
    inSet_[s] = 0;
    const double rate = newRate_[s];
    if (rate == f.rate) continue;
    // The member copies sit on long lists, and each is a cache miss: only a changed rate
    // visits them.
    const double delta = rate - f.rate;
    f.rate = rate;
    for (int i = 0; i < f.hops; ++i) {
      Member& m = state_[f.path[i]].flows[f.slotOn[i]];
      m.rate = rate;
      addRate(f.path[i], delta);  // after the copy: a fresh resum reads it
    }
    f.seq = sim_.reserveSeq();
    changed_.push_back(s);
  }
}

void FlowNetwork::countClassChanges() {
  // How many of each class's members change rate, and whether all froze at one resource.
  for (int s : changed_) {
    const int c = classes_.classOf(s);
    if (c == FlowClasses::kNone) continue;
    ClassState& cs = cls_[c];
    if (cs.mark != epoch_) {
      cs.mark = epoch_;
      cs.count = 0;
      cs.group = frozenAt_[s];
    }
    ++cs.count;
    if (cs.group != frozenAt_[s]) cs.group = -2;
  }
}

void FlowNetwork::moveWholeClasses(Time now) {
  // Each resource's frozen flows go to the first of their classes that moves whole with
  // them; it changes rate once.
  for (int s : changed_) {
    ResourceState& st = state_[frozenAt_[s]];
    if (st.targetMark != epoch_) {
      st.targetMark = epoch_;
      st.target = -1;
    }
    const int c = classes_.classOf(s);
    if (st.target >= 0 || c == FlowClasses::kNone) continue;
    if (cls_[c].count != classes_.size(c) || cls_[c].group != frozenAt_[s]) continue;
    st.target = c;
    classes_.setRate(c, now, flows_[s].rate);
    cls_[c].log.push_back(RateStep{now, flows_[s].rate});
    touchClass(c);
  }
}

void FlowNetwork::regroupChanged(Time now) {
  // The other changed flows join their resource's class (a new one if none moved whole).
  for (int s : changed_) {
    Flow& f = flows_[s];
    ResourceState& st = state_[frozenAt_[s]];
    if (st.target < 0) {
      st.target = newClass();
      classes_.setRate(st.target, now, f.rate);
    }
    const int t = st.target;
    const int c = classes_.classOf(s);
    if (c == t) continue;
    if (c != FlowClasses::kNone) {  // up to now at its old rate, as a per-flow timer would
      catchUp(s);
      credit(f, advance(f, f.segRate, now));
      classes_.leave(s, now);
      touchClass(c);
    }
    f.lastUpdate = now;
    f.segRate = f.rate;
    f.logPos = cls_[t].log.size();
    classes_.join(t, s, now, f.remaining);
    touchClass(t);
  }
}

int FlowNetwork::newClass() {
  if (!freeClasses_.empty()) {
    const int c = freeClasses_.back();
    freeClasses_.pop_back();
    return c;
  }
  cls_.emplace_back();
  cls_.back().timer = sim_.newTimer();
  const int c = static_cast<int>(cls_.size()) - 1;
  classes_.reserve(static_cast<int>(flows_.size()), c + 1);
  return c;
}

void FlowNetwork::touchClass(int cls) {
  if (cls_[cls].touched) return;
  cls_[cls].touched = true;
  touchedClasses_.push_back(cls);
}

void FlowNetwork::credit(const Flow& f, double moved) {
  for (int i = 0; i < f.hops; ++i) resources_[f.path[i]].bytesCarried += moved;
}

// The per-flow model's progress steps, one per rate change of the class since the flow's
// last update: the same products and subtractions in the same order, so the bytes left
// (and the end computed from them) are bit for bit the per-flow model's.
void FlowNetwork::catchUp(int slot) {
  Flow& f = flows_[slot];
  const std::vector<RateStep>& log = cls_[classes_.classOf(slot)].log;
  if (f.logPos == log.size()) return;
  double moved = 0;
  for (; f.logPos < log.size(); ++f.logPos) {
    moved += advance(f, f.segRate, log[f.logPos].at);
    f.segRate = log[f.logPos].rate;
  }
  credit(f, moved);
}

void FlowNetwork::retime(int cls) {
  ClassState& cs = cls_[cls];
  const int n = classes_.size(cls);
  if (n == 0) {
    sim_.cancelTimer(cs.timer);
    cs.armed = -1;
    cs.log.clear();
    freeClasses_.push_back(cls);
    return;
  }
  // A long-lived class's log is folded into its members now and then, so it stays short.
  if (cs.log.size() > 64 + 2 * static_cast<std::size_t>(n)) {
    for (int i = 0; i < n; ++i) catchUp(classes_.member(cls, i));
    for (int i = 0; i < n; ++i) flows_[classes_.member(cls, i)].logPos = 0;
    cs.log.clear();
  }
  // The smallest tag finishes first up to rounding; members within two picoseconds' worth
  // of bytes of it may finish at the same picosecond, or (by a rounding) before it.
  candidates_.clear();
  classes_.nearFirst(cls, 2.0 * classes_.rate(cls) + 1e-6, candidates_);
  int best = -1;
  Time bestAt = 0;
  std::uint64_t bestSeq = 0;
  for (int s : candidates_) {
    catchUp(s);
    const Flow& f = flows_[s];
    // Checked: a starved resource (rate near zero) must stop the run, not wrap the time.
    const Time at = checkedAdd(f.lastUpdate, checkedPs(f.remaining / f.segRate));
    if (best < 0 || at < bestAt || (at == bestAt && f.seq < bestSeq)) {
      best = s;
      bestAt = at;
      bestSeq = f.seq;
    }
  }
  cs.armed = best;
  ++timersArmed_;
  sim_.setTimerAt(cs.timer, bestAt, bestSeq,
                  Action{&classEvent, this, static_cast<std::uint64_t>(cls)});
}

}  // namespace moe
