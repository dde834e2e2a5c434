#pragma once
// The text `moe-sim run` prints: the per-stage table of each design, buffer footprints, time
// per role and activity, the load-balancing summary, the verification and the digest; or,
// for the fused workload, both kernels' times, the overlap ratio and the workspace.

#include <iosfwd>

#include "core/run/a2a_matmul_report.h"
#include "core/run/run_report.h"

namespace moesim {

void printReport(std::ostream& out, const moe::RunReport& r);
void printA2aMatmulReport(std::ostream& out, const moe::A2aMatmulReport& r);

}  // namespace moesim
