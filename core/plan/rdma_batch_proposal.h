#pragma once
// The combine's RDMA batch (combine.rdma_batch_bytes) the role model proposes for a scenario
// and its combine rings. The batch matters most at few tokens: each partial ring to another
// server holds back up to one batch until its forwarder runs dry, and at the end of the stage
// the NIC carries all those last batches together (role_throughput.h, the fill term).

#include <cstdint>

#include "core/plan/role_throughput.h"
#include "core/scenario/scenario.h"

namespace moe {

struct RdmaBatchProposal {
  std::int64_t bytes = 0;  // the batch proposed: the scenario's own unless another is faster
  double ns = 0;           // the combine's predicted stage time with it
  double keptNs = 0;       // with the scenario's own batch
  bool changed() const { return ns < keptNs; }
};

// Batches of 32 KiB to 1 MiB (no larger than a combine ring), doubling; one replaces the
// scenario's own only if the model predicts it at least 1% faster than the best so far, so
// a flat prediction keeps what the user chose. One server: the scenario's own (no partial
// crosses a NIC).
RdmaBatchProposal proposeRdmaBatch(const Scenario& sc, const RoutingShares& shares);
RdmaBatchProposal proposeRdmaBatch(const Scenario& sc);

}  // namespace moe
