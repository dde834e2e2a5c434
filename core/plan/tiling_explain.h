#pragma once
// Words for `moe-sim tiling`: why each proposed value is what it is, and each constraint the
// tiling must meet with its current margin, so a kernel engineer can check the proposal by
// hand. The proposal is a rule of thumb; `moe-sim tune` searches on the engine.

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
