#pragma once
// The emulated AlltoAll-Matmul-ReduceScatter kernels (DESIGN.md §3.6): the pipelined fused
// kernel and the sequential baseline, on an Emulation whose machine has `shape.ranks`
// cards. A2aMatmulRun (core/run/a2a_matmul_run.h) owns the context and runs the
// launchers as its stages.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/simulator.h"
#include "core/reference/a2a_matmul_rs.h"

namespace moe {

class Emulation;

// Pipelined: AIV pushers fill STAGES a2a slots per rank as slots free up, AIC cores start
// each tile when its slot's flag says full, AIV senders push each partial tile to its owner
// as soon as it is written, AIV reducers sum the r partials of each output tile.
// Sequential: the same steps with full-size workspaces, as three phases with a SyncAll
// between them.
//
// The context holds what the kernel's programs share on every card: tensors, workspaces,
// flag words, and the workspaces as WorkspaceStages strips ("a2a input", "partial sums" per
// AIC, "reduce-scatter buffer"), so their occupancy is observable. It is the fused
// operator's LayerContext; the launchers below start its programs like every other kernel.
class A2aMatmulContext {
 public:
  // Allocates tensors, workspaces, flags and strips on `emu`'s cards and copies the inputs
  // in. `in` must outlive the context only for this call.
  A2aMatmulContext(Emulation& emu, const A2aMatmulInputs& in, bool pipelined);
  ~A2aMatmulContext();
  A2aMatmulContext(const A2aMatmulContext&) = delete;
  A2aMatmulContext& operator=(const A2aMatmulContext&) = delete;

  bool pipelined() const;
  // Per rank: a2a slots + partial-sum slots + reduce-scatter buffer.
  std::int64_t workspaceBytes() const;
  // Per rank, [M/r, N], read back from the cards' GM.
  std::vector<std::vector<fp16>> outputs() const;

  struct Impl;

 private:
  friend void launchA2aMatmulPipelined(A2aMatmulContext&, Latch&);
  friend void launchA2aAllToAll(A2aMatmulContext&, Latch&);
  friend void launchA2aMatmul(A2aMatmulContext&, Latch&);
  friend void launchA2aReduceScatter(A2aMatmulContext&, Latch&);
  std::unique_ptr<Impl> impl_;
};

// The pipelined kernel: pushers, AIC cores, senders and reducers all at once.
void launchA2aMatmulPipelined(A2aMatmulContext& ctx, Latch& done);
// The sequential baseline's three phases; the first two end in a SyncAll of their cores.
void launchA2aAllToAll(A2aMatmulContext& ctx, Latch& done);
void launchA2aMatmul(A2aMatmulContext& ctx, Latch& done);
void launchA2aReduceScatter(A2aMatmulContext& ctx, Latch& done);

}  // namespace moe
