#pragma once
// What each MoE-layer design reserves and writes for its dispatch and combine buffers, per
// card: the design's memory rule, which the up-front memory check (memory_estimate.h) adds
// to the layer's own tensors. One function per design, named in the design registry.

#include <cstdint>
#include <string_view>

#include "core/scenario/scenario.h"

namespace moe {

// placePerRank: expert instances per rank (scenarioPlacePerRank).
struct DesignMemory {
  std::string_view label;  // for messages: "rings (dispatch and combine)"
  // Emulated GM reserved for the design's communication buffers.
  std::int64_t reservedBytes = 0;
  // Host bytes the buffers take as written (GM is allocated lazily: a worst-case window
  // costs what is written into it), at the dispatch's and the combine's busiest moment.
  std::int64_t dispatchWritten = 0;
  std::int64_t combineWritten = 0;
};

// Rings: a dispatch ring per local card and channel, IPC and partial rings for the combine,
// and RDMA batch staging on the forwarder cards.
DesignMemory streamingMemory(const Scenario& sc, int placePerRank);
// Windows: one full window per incoming link, the forwarders' slots, fp32 combine buffers.
DesignMemory phasedMemory(const Scenario& sc, int placePerRank);
// One worst-case dispatch window per source rank, one combine window per expert card.
DesignMemory flatMemory(const Scenario& sc, int placePerRank);

}  // namespace moe
