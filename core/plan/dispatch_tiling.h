#pragma once
// Checks that a ring tiling can work before anything runs (DESIGN.md §3.5 "tiling helper"),
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

// Proposes a tiling for a scenario, as seed 000's host tiling would:
// - chunk: the largest of 512, 256, 128, 64 KiB that holds at least one combine partial
//   record and whose role buffers fit UB (falling back to one record when even 64 KiB does
//   not fit);
// - queue: 8 chunks, or fewer (down to 2) when all rings of a card would take more than
//   1/16 of its HBM;
// - cores: 1/5 of the AIV cores each for senders, forwarders (token channels give each
//   one work) and receivers, so Idle cores remain for other work.
// One tiling for both stages. The result passes validateDispatchTiling, or this throws
// InputError saying why no tiling can work.
RingTilings proposeTiling(const Scenario& sc, int placePerRank);

}  // namespace moe
