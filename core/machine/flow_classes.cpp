#include "core/machine/flow_classes.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace moe {

void FlowClasses::reserve(int flows, int classes) {
  if (flows > static_cast<int>(classOf_.size())) {
    classOf_.resize(static_cast<std::size_t>(flows), kNone);
    position_.resize(static_cast<std::size_t>(flows), 0);
  }
  if (classes > static_cast<int>(classes_.size()))
    classes_.resize(static_cast<std::size_t>(classes));
}

void FlowClasses::setRate(int cls, Time now, double rate) {
  if (!(rate >= 0)) throw std::logic_error("FlowClasses: a negative or NaN rate");
  Class& c = classes_[cls];
  if (rate == c.rate) return;  // the clock needs no re-base: same arithmetic as before
  c.vBase = clock(c, now);
  c.tBase = now;
  c.rate = rate;
}

void FlowClasses::join(int cls, int flow, Time now, double remaining) {
  if (classOf_[flow] != kNone) throw std::logic_error("FlowClasses: joins a second class");
  Class& c = classes_[cls];
  if (c.heap.empty()) {  // a fresh clock keeps the tags small
    c.vBase = 0;
    c.tBase = now;
  }
  classOf_[flow] = cls;
  c.heap.push_back({clock(c, now) + remaining, flow});
  siftUp(c, c.heap.size() - 1);
}

double FlowClasses::leave(int flow, Time now) {
  const int cls = classOf_[flow];
  if (cls == kNone) throw std::logic_error("FlowClasses: leaves no class");
  Class& c = classes_[cls];
  const std::size_t i = static_cast<std::size_t>(position_[flow]);
  const double left = std::max(0.0, c.heap[i].tag - clock(c, now));
  classOf_[flow] = kNone;
  const Entry last = c.heap.back();
  c.heap.pop_back();
  if (i < c.heap.size()) {  // the last entry fills the hole, then finds its place
    c.heap[i] = last;
    place(c, i);
    siftUp(c, i);
    siftDown(c, static_cast<std::size_t>(position_[last.flow]));
  }
  return left;
}

double FlowClasses::remaining(int flow, Time now) const {
  const Class& c = classes_[classOf_[flow]];
  return std::max(0.0, c.heap[static_cast<std::size_t>(position_[flow])].tag - clock(c, now));
}

int FlowClasses::first(int cls) const {
  const Class& c = classes_[cls];
  return c.heap.empty() ? kNone : c.heap.front().flow;
}

void FlowClasses::nearFirst(int cls, double slack, std::vector<int>& out) const {
  const Class& c = classes_[cls];
  if (c.heap.empty()) return;
  const double tag = c.heap.front().tag;
  const double limit = tag + slack + 1e-9 * std::abs(tag);
  // A heap's entries within a bound form a subtree at the root: walk only that, breadth
  // first, with `out` as the queue (a member's heap index is its position).
  const std::size_t from = out.size();
  out.push_back(c.heap.front().flow);
  for (std::size_t k = from; k < out.size(); ++k) {
    const auto i = static_cast<std::size_t>(position_[out[k]]);
    for (std::size_t j = 2 * i + 1; j <= 2 * i + 2 && j < c.heap.size(); ++j)
      if (c.heap[j].tag <= limit) out.push_back(c.heap[j].flow);
  }
}

Time FlowClasses::firstFinish(int cls) const {
  const Class& c = classes_[cls];
  if (c.heap.empty() || !(c.rate > 0))
    throw std::logic_error("FlowClasses: no finish for an empty or stopped class");
  const double left = std::max(0.0, c.heap.front().tag - c.vBase);
  return checkedAdd(c.tBase, checkedPs(left / c.rate));
}

void FlowClasses::place(Class& c, std::size_t i) {
  position_[c.heap[i].flow] = static_cast<int>(i);
}

void FlowClasses::siftUp(Class& c, std::size_t i) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!c.heap[i].before(c.heap[parent])) break;
    std::swap(c.heap[i], c.heap[parent]);
    place(c, i);
    i = parent;
  }
  place(c, i);
}

void FlowClasses::siftDown(Class& c, std::size_t i) {
  const std::size_t n = c.heap.size();
  for (;;) {
    std::size_t best = i;
    for (std::size_t k = 2 * i + 1; k <= 2 * i + 2 && k < n; ++k)
      if (c.heap[k].before(c.heap[best])) best = k;
    if (best == i) break;
    std::swap(c.heap[i], c.heap[best]);
    place(c, i);
    i = best;
  }
  place(c, i);
}

}  // namespace moe
