#pragma once
// The emulated AlltoAll-Matmul-ReduceScatter kernels (SPEC §3.6): the pipelined fused
// kernel and the sequential baseline, on an Emulation whose machine has `shape.ranks`
// cards. A2aMatmulRun (core/pipeline/a2a_matmul_run.h) owns one and steps it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/task.h"
#include "core/engine/time.h"
#include "core/reference/a2a_matmul_rs.h"

namespace moe {

class Emulation;

struct A2aMatmulPhase {
  std::string name;
  Time start = 0, end = 0;
};

// Pipelined: AIV pushers fill STAGES a2a slots per rank as slots free up, AIC cores start
// each tile when its slot's flag says full, AIV senders push each partial tile to its owner
// as soon as it is written, AIV reducers sum the r partials of each output tile.
// Sequential: the same steps with full-size workspaces, as three phases with a SyncAll
// between them.
//
// The workspaces are registered as WorkspaceStages strips per card ("a2a input",
// "partial sums" per AIC, "reduce-scatter buffer"), so their occupancy is observable.
class A2aMatmulKernel {
 public:
  // Allocates tensors, workspaces, flags and strips on `emu`'s cards and copies the inputs
  // in. `in` must outlive the kernel only for this call.
  A2aMatmulKernel(Emulation& emu, const A2aMatmulInputs& in, bool pipelined);
  ~A2aMatmulKernel();
  A2aMatmulKernel(const A2aMatmulKernel&) = delete;
  A2aMatmulKernel& operator=(const A2aMatmulKernel&) = delete;

  // The host program: launches the phases in order. Spawn it once on the simulator.
  Task driver();

  bool pipelined() const;
  // "not started", the running phase's name, then "done".
  const std::string& stage() const;
  const std::vector<A2aMatmulPhase>& phases() const;
  // Per rank: a2a slots + partial-sum slots + reduce-scatter buffer.
  std::int64_t workspaceBytes() const;
  // Per rank, [M/r, N], read back from the cards' GM.
  std::vector<std::vector<fp16>> outputs() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace moe
