#pragma once
// The plain max-min fair share (progressive filling over every flow at once): the golden
// reference for the incremental solver in core/machine/flow_network. It keeps no state and
// takes no shortcut, so it is slow (every call touches every flow) and easy to trust.

#include <vector>

namespace moe {

// capacity[r] > 0 for every resource; paths[f] lists the resources flow f crosses (each at
// most once, at least one). Returns each flow's rate: the unique allocation in which every
// flow crosses a saturated resource on which no other flow runs faster.
std::vector<double> maxMinFairRates(const std::vector<double>& capacity,
                                    const std::vector<std::vector<int>>& paths);

}  // namespace moe
