#pragma once
// Checks that a ring tiling can work before anything runs (SPEC §3.5 "tiling helper"),
// naming the scenario field and the reason: a chunk smaller than one record, a queue
// shorter than 2 chunks, more role cores than AIV cores, or a role's UB overflowing.

#include "core/pipeline/layer_context.h"

namespace moe {

// UB bytes each streaming role needs for a given tiling (used by the check and the UI).
struct RoleUbNeeds {
  std::int64_t sender;
  std::int64_t forwarder;
  std::int64_t receiver;
};
RoleUbNeeds streamingUbNeeds(const Scenario& sc, int placePerRank);

// Throws InputError naming rings.* on a tiling that cannot work.
void validateDispatchTiling(const Scenario& sc, int placePerRank);

}  // namespace moe
