#include "core/plan/rdma_batch_proposal.h"

#include <algorithm>

namespace moe {

RdmaBatchProposal proposeRdmaBatch(const Scenario& sc, const RoutingShares& shares) {
  Scenario s = sc;
  RdmaBatchProposal p;
  p.bytes = sc.combine.rdmaBatchBytes;
  p.keptNs = predictStage(s, shares, RingStage::Combine, s.rings.combine).stageNs();
  p.ns = p.keptNs;
  if (sc.cluster.servers == 1) return p;
  const std::int64_t ring = sc.rings.combine.chunkBytes * sc.rings.combine.queueChunks;
  for (std::int64_t b = 32 * 1024; b <= std::min<std::int64_t>(ring, 1 << 20); b *= 2) {
    s.combine.rdmaBatchBytes = b;
    const double ns = predictStage(s, shares, RingStage::Combine, s.rings.combine).stageNs();
    if (ns < p.ns * (1 - 0.01)) {
      p.bytes = b;
      p.ns = ns;
    }
  }
  return p;
}

RdmaBatchProposal proposeRdmaBatch(const Scenario& sc) {
  return proposeRdmaBatch(sc, routingShares(sc));
}

}  // namespace moe
