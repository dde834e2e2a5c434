#pragma once
// The one place a run is built. A front end resolves a scenario once, picks a typed design,
// and gets a SteppableRun: the CLI's reports, the workbench's worker and its Compare view
// all come here, so a new workload or design is added in one spot.

#include <memory>

#include "core/run/a2a_matmul_run.h"
#include "core/run/design.h"
#include "core/run/layer_run.h"
#include "core/run/resolved_scenario.h"
#include "core/runtime/layer_context.h"
#include "core/runtime/steppable_run.h"

namespace moe {

// Any design of the resolved scenario's workload. Throws InputError("design", ...) for a
// design of another workload, and InputError("fault", ...) for a fault the design cannot
// take (faults are injected into the streaming combine only).
std::unique_ptr<SteppableRun> makeRun(const ResolvedScenario& rs, Design design,
                                      Fault fault = Fault::None);

// The same, typed, for reports that read a workload's own figures.
std::unique_ptr<LayerRun> makeLayerRun(const ResolvedScenario& rs, Design design,
                                       Fault fault = Fault::None);
std::unique_ptr<A2aMatmulRun> makeA2aMatmulRun(const ResolvedScenario& rs, Design design);

}  // namespace moe
