#pragma once
// The fluid model of a set of transfers, solved the plain way: at every instant at which a
// transfer starts or ends, every active transfer's rate comes from a fresh max-min solve
// (core/reference/max_min_fair). The golden reference for the completion times of
// core/machine/flow_network, which solves incrementally and re-times only what changed.
// Slow (a full solve per instant) and easy to trust.

#include <cstdint>
#include <vector>

#include "core/engine/time.h"

namespace moe {

struct FluidTransfer {
  Time start;
  std::vector<int> path;  // resource ids, each at most once
  std::int64_t bytes;
};

// Each transfer's completion time. A transfer that carries no bytes completes at its start.
// A transfer's completion is re-timed only at an instant where its rate changes: then it is
// that instant plus its bytes left over its new rate, rounded up to a whole picosecond (the
// rounding of core/engine/time.h), so the oracle rounds as the solver it checks does.
std::vector<Time> fluidCompletionTimes(const std::vector<double>& capacity,
                                       const std::vector<FluidTransfer>& transfers);

}  // namespace moe
