#pragma once
// Words for `moe-sim tiling`: the role model's prediction at the proposal (each role's time,
// what limits it, the bottleneck) and the runner-up per stage, the routing it works from,
// and each constraint the tiling must meet with its current margin, so a kernel engineer can
// check the proposal by hand. `moe-sim tune` searches on the engine.

#include <string>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe {

struct TilingLine {
  std::string field;  // scenario path, or "constraint"
  std::string text;
};

// `sc` carries the proposed tiling (rings) and the scenario's combine knobs.
std::vector<TilingLine> explainTiling(const Scenario& sc, int placePerRank);

}  // namespace moe
