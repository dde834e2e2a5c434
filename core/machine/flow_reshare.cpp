// The most common recompute, solved without the general fill and check: a transfer starts or
// ends on one saturated resource b (a NIC, say), and the class of flows bottlenecked there
// takes the new share, while no other flow's bottleneck moves.
//
// Who would move otherwise, and how this rules it out:
// - The flows of the class cross other resources. Each of those must be unsaturated before
//   (nobody's bottleneck, so a member giving back capacity there frees it for no one) and
//   stay unsaturated after the class takes its new share (so b is still the members' first
//   bottleneck), with twice the saturation slack to spare, far beyond any rounding.
// - Slower flows on b had their bottleneck elsewhere. When the share falls, none of them may
//   now run faster than the class (they would hold capacity the class is owed).
// - Every other resource that the start or end touched was unsaturated before.
// Under these conditions the general solve (fill, then the bottleneck check) freezes every
// flow of the working set at b's share in its first round and the check adds no flow, so
// this writes the same rates, bit for bit: b's share is computed with fill()'s arithmetic,
// from the same working set in the same order. Tests run both and compare
// (FlowNetwork::setReshareShortcut).

#include <algorithm>

#include "core/machine/flow_network.h"

namespace moe {

bool FlowNetwork::reshareAtOneResource() {
  if (!reshare_ || newFlows_.size() > 1) return false;
  int b = -1;
  for (int r : dirty_) {
    if (!state_[r].wasSaturated) continue;
    if (b >= 0) return false;  // two classes re-share at once: they may interact
    b = r;
  }
  if (b < 0) return false;
  const ResourceState& bs = state_[b];
  if (!(bs.fastestBefore > 0)) return false;
  // The working set as solveWorkingSet() lists it: the new flow, then b's fastest flows.
  set_.clear();
  if (!newFlows_.empty()) {
    const Flow& f = flows_[newFlows_.front()];
    if (std::find(f.path.begin(), f.path.begin() + f.hops, b) == f.path.begin() + f.hops)
      return false;  // the new flow's share is set elsewhere
    set_.push_back(newFlows_.front());
  }
  const double threshold = bs.fastestBefore * (1 - kEps);
  for (const Member& m : bs.flows)
    if (m.rate >= threshold) set_.push_back(m.slot);
  // Per resource the working set crosses: its flows' old rates (summed in fill()'s order)
  // and their count.
  fillResources_.clear();
  for (int s : set_) {
    const Flow& f = flows_[s];
    for (int i = 0; i < f.hops; ++i) {
      ResourceState& st = state_[f.path[i]];
      if (!st.inFill) {
        st.inFill = true;
        st.left = 0;
        st.unfrozen = 0;
        fillResources_.push_back(f.path[i]);
      }
      st.left += f.rate;
      ++st.unfrozen;
    }
  }
  const ResourceState& sb = state_[b];
  const double share =
      std::max(0.0, resources_[b].capacity - (resources_[b].activeRate - sb.left)) / sb.unfrozen;
  bool ok = share > 0;
  for (int r : fillResources_) {
    ResourceState& st = state_[r];
    st.inFill = false;
    if (!ok || r == b) continue;
    const NetResource& res = resources_[r];
    const double after = res.activeRate - st.left + st.unfrozen * share;
    ok = res.activeRate < res.capacity * (1 - kEps) && after < res.capacity * (1 - 2 * kEps);
  }
  for (std::size_t k = 0; ok && k < sb.flows.size(); ++k)
    ok = sb.flows[k].rate >= threshold || sb.flows[k].rate <= share;
  if (!ok) {
    set_.clear();
    return false;
  }
  flowsRecomputed_ += set_.size();
  ++reshares_;
  for (int s : set_) {
    newRate_[s] = share;
    frozenAt_[s] = b;
  }
  return true;
}

}  // namespace moe
