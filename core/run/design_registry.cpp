#include "core/run/design_registry.h"

#include <algorithm>
#include <stdexcept>

#include "core/kernels/kernels.h"

namespace moe {

std::vector<DesignStage> layerStages(std::string_view dispatchName, LayerLaunch dispatch,
                                     std::string_view combineName, LayerLaunch combine) {
  return {{StageId::UpdateExpert, "update-expert", launchUpdateExpert},
          {StageId::Layout, "layout", launchLayout},
          {StageId::DispatchNotify, "dispatch-notify", launchDispatchNotify},
          {StageId::Dispatch, dispatchName, dispatch},
          {StageId::Experts, "experts", launchExperts},
          {StageId::Combine, combineName, combine}};
}

namespace {

// The entry with its identity taken from the design table's row.
DesignEntry withIdentity(Design d, DesignEntry e) {
  e.design = d;
  e.name = designName(d);
  e.workload = workloadOf(d);
  return e;
}

// One entry per row of the design table, in its (report) order.
std::vector<DesignEntry> buildRegistry() {
  std::vector<DesignEntry> r;
#define MOE_ADD_DESIGN_ENTRY(id, ...) r.push_back(withIdentity(Design::id, entryOf##id()));
  MOE_DESIGNS(MOE_ADD_DESIGN_ENTRY)
#undef MOE_ADD_DESIGN_ENTRY
  return r;
}

}  // namespace

const std::vector<DesignEntry>& designRegistry() {
  static const std::vector<DesignEntry> registry = buildRegistry();
  return registry;
}

bool DesignEntry::reads(std::string_view knob) const {
  return std::find(knobs.begin(), knobs.end(), knob) != knobs.end();
}

const DesignEntry& designEntry(Design d) {
  for (const DesignEntry& e : designRegistry())
    if (e.design == d) return e;
  throw std::logic_error("design missing from the registry");
}

}  // namespace moe
