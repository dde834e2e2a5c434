#pragma once
// The MoE layer's operator arguments as a scenario gives them: the eplb_table, the
// MoeUpdateExpert arguments of one rank, and the instances per rank the table implies.

#include <cstdint>
#include <utility>
#include <vector>

#include "core/reference/gating.h"
#include "core/reference/update_expert.h"
#include "core/scenario/scenario.h"

namespace moe {

// The eplb_table a resolved scenario uses: its explicit table, or the identity (expert e on
// instance e). Returns {rows [E*F], F}.
std::pair<std::vector<std::int32_t>, int> scenarioTable(const Scenario& sc);

// UpdateExpert arguments for one rank, from the gating output.
UpdateExpertArgs updateExpertArgs(const Scenario& sc, const RankGating& g, int rank);

// Instances per rank of a resolved scenario's eplb table; throws InputError ("eplb....")
// when the table breaks a MoeUpdateExpert rule or contradicts eplb.place_per_rank.
int scenarioPlacePerRank(const Scenario& sc);

}  // namespace moe
