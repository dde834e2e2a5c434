#pragma once
// Every design the product emulates, one entry each: its description, its stages in run
// order with their kernels, which scenario knobs change it, and its memory rule. Its identity
// (enum value, name, workload, communication algorithm, ...) is the design table's row
// (core/scenario/design_table.h), which the registry copies into the entry. Each design's
// entry sits in its own file, core/run/designs/<name>.cpp, with its memory rule, as the
// function entryOf<Enumerator>() that the table's row declares here; the registry lists them
// in the table's order. The run factory, the layer's host program, the memory check, the
// `designs` listing, the sweep and the verification read this table; adding a design is its
// kernels, its reference, its row in the design table and its design file
// (docs/ARCHITECTURE.md, "How to add a design").

#include <string_view>
#include <vector>

#include "core/kernels/a2a_matmul_rs_kernel.h"
#include "core/run/design.h"
#include "core/run/design_memory.h"
#include "core/runtime/layer_context.h"
#include "core/runtime/stage_report.h"
#include "core/scenario/design_table.h"

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
  std::string_view description;  // one line for help texts and listings
  std::vector<DesignStage> stages;
  // The scenario fields (JSON paths) whose value changes this design's run beyond the
  // shape every design shares; a test checks that no other knob does.
  std::vector<std::string_view> knobs;
  // The MoE layer's designs: the communication buffers they reserve and write, for
  // placePerRank expert instances per rank.
  DesignMemory (*memory)(const Scenario&, int placePerRank) = nullptr;
  // The MoE layer's designs: how many token channels dispatch splits a rank's tokens into
  // (LayerContext::channels); nothing: one.
  int (*dispatchChannels)(const Scenario&) = nullptr;

  // From the design table's row, filled in by the registry: the design, its name
  // ("streaming") and the workload it belongs to.
  Design design = Design::Phased;
  std::string_view name = {};
  WorkloadKind workload = WorkloadKind::MoeLayer;

  // Whether the scenario field `knob` (a JSON path) is one of this design's knobs.
  bool reads(std::string_view knob) const;
};

// Each design's entry, without its identity, declared from its row in the design table:
// entryOfPhased(), entryOfStreaming(), ..., each defined in the design's own file.
#define MOE_DECLARE_DESIGN_ENTRY(id, ...) DesignEntry entryOf##id();
MOE_DESIGNS(MOE_DECLARE_DESIGN_ENTRY)
#undef MOE_DECLARE_DESIGN_ENTRY

// The MoE layer's stages, for its designs' entries: every design shares all but dispatch
// and combine, which are its own ("dispatch-flat", launchDispatchFlat).
std::vector<DesignStage> layerStages(std::string_view dispatchName, LayerLaunch dispatch,
                                     std::string_view combineName, LayerLaunch combine);

// In report order: phased, streaming, flat, pipelined, sequential.
const std::vector<DesignEntry>& designRegistry();
const DesignEntry& designEntry(Design d);

}  // namespace moe
