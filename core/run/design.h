#pragma once
// Which designs a run emulates. A design's identity (its enum value, name and workload) is
// the design table's (core/scenario/design_table.h); its stages, kernels, knobs and memory
// rule are the design registry's (design_registry.h).

#include <vector>

#include "core/scenario/design_table.h"
#include "core/scenario/scenario.h"

namespace moe {

// The designs `moe-sim run` emulates for a scenario: the MoE layer's dispatch_impl (both:
// phased, then streaming; all: every MoE-layer design), or both kernels of the fused operator.
std::vector<Design> scenarioDesigns(const Scenario& sc);

}  // namespace moe
