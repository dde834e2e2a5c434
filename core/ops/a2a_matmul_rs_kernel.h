#pragma once
// The emulated AlltoAll-Matmul-ReduceScatter kernels (SPEC §3.6): the pipelined fused
// kernel and the sequential baseline, run on a machine of `shape.ranks` cards.

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/time.h"
#include "core/ops/a2a_matmul_rs.h"
#include "core/scenario/scenario.h"

namespace moe {

struct A2aMatmulPhase {
  std::string name;
  Time start = 0, end = 0;
};

struct A2aMatmulRunResult {
  bool pipelined = false;
  bool finished = false;
  std::string deadlock;              // the diagnosis when it did not finish
  Time time = 0;                     // emulated time from launch to the last core's end
  std::vector<A2aMatmulPhase> phases;  // sequential: all-to-all, matmul, reduce-scatter
  std::vector<std::vector<fp16>> out;  // per rank, [M/r, N]
  std::int64_t workspaceBytes = 0;   // per rank: a2a slots + partial-sum slots + RS buffer
  std::uint64_t digest = 0;          // event log, end time and output bytes
  std::uint64_t events = 0;
};

// Pipelined: AIV pushers fill STAGES a2a slots per rank as slots free up, AIC cores start
// each tile when its slot's flag says full, AIV senders push each partial tile to its owner
// as soon as it is written, AIV reducers sum the r partials of each output tile.
// Sequential: the same steps with full-size workspaces, as three phases with a SyncAll
// between them. `sc` supplies the hardware profile and seed-independent settings.
A2aMatmulRunResult runA2aMatmul(const Scenario& sc, const ops::A2aMatmulInputs& in, bool pipelined);

}  // namespace moe
