#pragma once
// `moe-sim run --workload alltoall-matmul-rs`: runs the pipelined fused kernel and the
// sequential baseline on the scenario's workload shape, optionally checks both against the
// golden GEMM, and prints the comparison.

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/pipeline/a2a_matmul_run.h"

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

// Throws InputError (naming the workload field) for a shape the kernel cannot run.
A2aMatmulReport runA2aMatmulWorkload(const Scenario& sc, bool verify);
void printA2aMatmulReport(std::ostream& out, const A2aMatmulReport& r);
void writeA2aMatmulCsv(std::ostream& out, const A2aMatmulReport& r);
// The same CSV (header and one row per phase) for the given runs, finished or not: a phase
// still running has no row yet.
void writeA2aMatmulPhasesCsv(std::ostream& out, const std::vector<const A2aMatmulRun*>& runs);

}  // namespace moe

namespace moe {
// The whole CLI command: runs, prints to stdout, writes --csv and --trace (the Chrome trace
// of both runs, pipelined first, each card a process); returns the exit code (0 ok, 1
// verification failed or a run did not finish). The caller checks the output paths first
// (checkOutputPaths); files are written atomically, and a failed write is an InputError.
int runA2aMatmulCommand(const Scenario& sc, bool verify, const std::string& traceFile,
                        const std::string& csvFile);
}  // namespace moe
