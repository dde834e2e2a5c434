#pragma once
// Every design the product emulates, one entry each: its name and description, its workload,
// its stages in run order with their kernels, which scenario knobs change it, and its memory
// rule. The run factory, the layer's host program, the memory check, the CLI's choices, the
// `designs` listing, the sweep, the tuner and fidelity read this table; adding a design is
// its kernels, its reference and one entry here (docs/ARCHITECTURE.md).

#include <string_view>
#include <vector>

#include "core/kernels/a2a_matmul_rs_kernel.h"
#include "core/run/design.h"
#include "core/run/design_memory.h"
#include "core/runtime/layer_context.h"
#include "core/runtime/stage_report.h"

namespace moe {

using LayerLaunch = void (*)(LayerContext&, Latch&);
using FusedLaunch = void (*)(A2aMatmulContext&, Latch&);

// One stage of a design: its id, its display name, and the kernel it launches (one of the
// two, by the design's workload).
struct DesignStage {
  StageId id;
  std::string_view name;  // "dispatch-streaming": StageReport::name
  LayerLaunch layer = nullptr;
  FusedLaunch fused = nullptr;
};

struct DesignEntry {
  Design design;
  std::string_view name;         // "streaming": the CLI, the scenario JSON, sweep rows, the GUI
  std::string_view description;  // one line for help texts and listings
  WorkloadKind workload;
  std::vector<DesignStage> stages;
  // The scenario fields (JSON paths) whose value changes this design's run beyond the
  // shape every design shares; a test checks that no other knob does.
  std::vector<std::string_view> knobs;
  // The MoE layer's designs: the communication buffers they reserve and write.
  DesignMemory (*memory)(const Scenario&, int placePerRank) = nullptr;
  // The MoE layer's designs: the scenario's dispatch_impl value that runs this design alone.
  DispatchImpl impl = DispatchImpl::Both;
};

// In report order: phased, streaming, flat, pipelined, sequential.
const std::vector<DesignEntry>& designRegistry();
const DesignEntry& designEntry(Design d);

}  // namespace moe
