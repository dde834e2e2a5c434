#pragma once
// `moe-sim run --workload alltoall-matmul-rs`: runs the pipelined fused kernel and the
// sequential baseline on the scenario's workload shape and optionally checks both against
// the golden GEMM. The text summary is the CLI's (app/moe_sim/run_text.h).

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/run/a2a_matmul_run.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"

namespace moe {

struct A2aMatmulReport {
  A2aMatmulShape shape;
  A2aMatmulRunResult pipelined, sequential;
  // The finished runs themselves, kept for the trace (their emulations hold the event log).
  std::shared_ptr<const A2aMatmulRun> pipelinedRun, sequentialRun;
  bool verified = false;
  std::vector<VerificationCheck> checks;
  // (T_seq - T_pipe) / (T_seq all-to-all + T_seq reduce-scatter), clamped to [0, 1].
  double overlapRatio() const;
  std::uint64_t digest() const;
  bool ok() const;
};

// Runs both kernels of the resolved fused workload on its inputs, pipelined first.
// `progress`: as for runScenario, every 65536 events of each design.
A2aMatmulReport runA2aMatmulWorkload(const ResolvedScenario& rs, bool verify,
                                     const RunProgress& progress = {});
void writeA2aMatmulCsv(std::ostream& out, const A2aMatmulReport& r);
// The Chrome trace of both kernels (processes "pipelined cardN" and "sequential cardN").
void writeA2aMatmulTrace(std::ostream& out, const A2aMatmulReport& r);
// The same CSV (header and one row per phase) for the given runs' results, finished or not:
// a phase still running has no row yet.
void writeA2aMatmulPhasesCsv(std::ostream& out, const std::vector<RunResult>& runs);

}  // namespace moe
