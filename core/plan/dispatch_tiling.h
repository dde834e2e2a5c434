#pragma once
// Checks that a ring tiling can work before anything runs (DESIGN.md §3.5 "tiling helper"),
// naming the scenario field and the reason: a chunk smaller than one record, a queue
// shorter than 2 chunks, more role cores than AIV cores, or a role's UB overflowing.

#include <cstddef>
#include <vector>

#include "core/plan/role_throughput.h"
#include "core/runtime/layer_context.h"

namespace moe {

// UB bytes each streaming role needs for a given tiling (used by the check and the UI).
struct RoleUbNeeds {
  std::int64_t sender;
  std::int64_t forwarder;
  std::int64_t receiver;
};
// One stage's roles, with that stage's tiling. The combine forwarder holds a read batch, a
// bf16 wire record (bf16 partials only) and its accumulation window of fp32 partial rows
// (combineUbWindowRows); the combine receiver's buffers are not modelled (0).
RoleUbNeeds streamingUbNeeds(const Scenario& sc, int placePerRank, RingStage stage);
// Both stages: each role's larger need (what a role needs when one tiling serves both).
RoleUbNeeds streamingUbNeeds(const Scenario& sc, int placePerRank);

// Token channels of the streaming dispatch (LayerContext::channels): each source card's
// tokens for another server are split into this many contiguous ranges, each crossing its
// own RDMA ring to its own forwarder core, so the forwarder cores share the RDMA traffic
// even with two servers (DeepEP splits the same traffic over its channels): forwarder cores
// / other servers, rounded down (a core draining two rings while others drain one made it
// the bottleneck: EP 32 dispatch 3645 us with 9 rings on 8 cores, 2202 us with 6), at least
// 1, at most tokens_per_rank; 1 on one server.
int dispatchRdmaChannels(const Scenario& sc);
// Chunks of one channel's ring (RDMA or forwarded): the queue of a (source, server) stream
// is split over its channels, at least 2 chunks each, so channels add forwarder cores, not
// data in flight.
int dispatchChannelQueueChunks(const Scenario& sc);
// Rings into one card in the streaming dispatch: a direct IPC ring from each local card
// (queue_chunks each), and per (other server, channel) an RDMA ring and a forwarded IPC
// ring from each local card (the channel rings, dispatchChannelQueueChunks each).
std::int64_t streamingDispatchChannelRingsPerCard(const Scenario& sc);
// Their data bytes.
std::int64_t streamingDispatchRingBytesPerCard(const Scenario& sc);

// The combine forwarder's UB bytes besides its window, and per window row.
std::int64_t combineForwarderFixedUb(const Scenario& sc);
// Window rows: combine.ub_window_rows, or when 0 as many as fit UB beside the fixed part
// (at least 1, at most kMaxAutoWindowRows).
constexpr int kMaxAutoWindowRows = 256;
int combineUbWindowRows(const Scenario& sc);

// Ring bytes one card holds for the streaming dispatch and combine together (see
// dispatch_streaming.cpp and combine_plan.h), and the budget the proposal and the tuner keep
// them in: 1/16 of the card's HBM, so the layer's tensors and other work keep the rest.
std::int64_t streamingRingBytesPerCard(const Scenario& sc);
inline std::int64_t ringHbmBudget(const Scenario& sc) {
  return sc.hardware.hbmBytes / 16;
}

// Throws InputError naming rings.* (rings.dispatch.* or rings.combine.* when the stages
// have their own tilings) on a tiling that cannot work.
void validateDispatchTiling(const Scenario& sc, int placePerRank);

// The chunk sizes the proposal tries (the tuner's): 16 KiB to 512 KiB, doubling.
const std::vector<std::int64_t>& tilingChunkGrid();

// A stage's tiling and what the role model (role_throughput.h) predicts for it.
struct TilingCandidate {
  RingTiling tiling;
  StagePrediction prediction;
};
// The `keep` best tilings of one stage by the role model's stage time, best first: every
// chunk size of the tuner's grid that holds a record (one record per chunk when none fits
// UB), the tuner's queue depths (2..32) and core counts per role, within the AIV cores, each
// role's UB (streamingUbNeeds) and half the rings' HBM budget. Empty when nothing fits.
std::vector<TilingCandidate> rankTilings(const Scenario& sc, int placePerRank, RingStage stage,
                                         std::size_t keep);

// Proposes a tiling for a scenario: per stage, the best of rankTilings (the stages get their
// own tilings, so the dispatch and the combine each fit their own roles). The result passes
// validateDispatchTiling, or this throws InputError saying why no tiling can work.
RingTilings proposeTiling(const Scenario& sc, int placePerRank);

}  // namespace moe
