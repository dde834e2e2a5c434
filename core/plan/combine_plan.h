#pragma once
// What each combine consumer must expect, derived after dispatch from the routing every
// rank holds (DeepEP hands the same prefix sums from dispatch to combine as its "handle").
// With these counts no consumer needs an end-of-stream barrier.
//
// Streaming combine topology, for expert card d, forwarder card f and token owner r:
//   IPC ring     on f, from d, lane L              rows of owners r with local(r) == local(f)
//                                                  whose (server(r), channel(t)) maps to L
//   partial ring on r, from server S, channel c    partial sums of r's tokens in channel c
// channel(t) splits a rank's tokens into contiguous ranges, as DeepEP's channels do. A
// forwarder lane is a set of (destination server, channel) pairs, dealt round-robin over
// the forwarder cores, so every forwarder core has work even with fewer servers than
// cores. Each partial ring is fed by exactly one lane and drained by one receiver core
// (channel mod receiver cores), so every ring keeps one producer and one consumer.

#include <cstdint>
#include <vector>

#include "core/runtime/layer_context.h"

namespace moe {

struct CombinePlan {
  int lanes = 1;     // forwarder cores at work on each card
  int channels = 1;  // token ranges per rank
  // [card f][dLocal * lanes + lane]: rows card d sends to f's IPC ring of that lane.
  std::vector<std::vector<std::int64_t>> fwdRows;
  // [card f][server(r) * BS + t]: contributions server(f) holds for token t of the owner
  // r = (server(r), local(f)).
  std::vector<std::vector<std::int32_t>> fwdCount;
  // [card r][S * channels + c]: partial records r receives from server S in channel c.
  std::vector<std::vector<std::int64_t>> recvRecords;
  // [card r][t]: servers contributing to token t.
  std::vector<std::vector<std::int32_t>> recvServers;

  int channel(const LayerContext& ctx, int token) const {
    return static_cast<int>(static_cast<std::int64_t>(token) * channels / ctx.tokensPerRank);
  }
  // The forwarder lane of the (destination server, channel) pair.
  int laneOf(int ownerServer, int ch) const { return (ownerServer * channels + ch) % lanes; }
  int lane(const LayerContext& ctx, int ownerRank, int token) const {
    return laneOf(ctx.serverOf(ownerRank), channel(ctx, token));
  }
  // Whether lane L forwards any channel of the owners on server S.
  bool laneServes(int ownerServer, int L) const {
    for (int c = 0; c < channels; ++c)
      if (laneOf(ownerServer, c) == L) return true;
    return false;
  }
};

// Lanes and channels for a scenario: channels = max(receiver cores, ceil(forwarder cores /
// servers)) capped at BS; lanes = min(forwarder cores, servers x channels).
void combineLanesAndChannels(const Scenario& sc, int& lanes, int& channels);

// One target of a card's senders: the IPC ring of `lane` on the server's card `localCard`.
struct SenderTargetSlot {
  int localCard;
  int lane;
  bool operator==(const SenderTargetSlot&) const = default;
};

// The order in which a card's senders take their targets (dealt round-robin over its sender
// cores, which serve them in step), diagonally: round n holds every card once, the card j
// places on from this one (place i holds j = i + n, so a core's cards turn from round to
// round and each core gets this card's cheap local target in turn), in lane (j + n) mod
// lanes. At any moment the cores then feed every card, and the server's cards, each
// counting from itself, feed different lanes, so a forwarder gets its rows (and completes
// its tokens) all through the stage. Card by card instead, a hot card's rows reached its
// last forwarder only at the end of its walk, and that forwarder's partials all left late
// (4 x 8 cards x 4096 tokens, hot routing: combine 54.4 ms, 37.9 ms diagonally). Every
// (card, lane) pair appears exactly once.
std::vector<SenderTargetSlot> senderTargetOrder(int cardsPerServer, int lanes, int localCard);

// Reads the routing (balanced ids, keep mask) from the cards' GM.
CombinePlan buildCombinePlan(const LayerContext& ctx);

}  // namespace moe
