#pragma once
// Checks that a ring tiling can work before anything runs (SPEC §3.5 "tiling helper"),
// naming the scenario field and the reason: a chunk smaller than one record, a queue
// shorter than 2 chunks, more role cores than AIV cores, or a role's UB overflowing.

#include "core/runtime/layer_context.h"

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

// Proposes a tiling for a scenario, as seed 000's host tiling would:
// - chunk: the largest of 512, 256, 128, 64 KiB that holds at least one combine partial
//   record and whose role buffers fit UB (falling back to one record when even 64 KiB does
//   not fit);
// - queue: 8 chunks, or fewer (down to 2) when all rings of a card would take more than
//   1/16 of its HBM;
// - cores: 1/5 of the AIV cores each for senders and receivers, and one forwarder per
//   server lane (capped at 1/5), so Idle cores remain for other work.
// The result passes validateDispatchTiling, or this throws InputError saying why no
// tiling can work.
RingTiling proposeTiling(const Scenario& sc, int placePerRank);

}  // namespace moe
