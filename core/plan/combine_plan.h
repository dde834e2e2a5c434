#pragma once
// What each combine consumer must expect, derived after dispatch from the routing every
// rank holds (DeepEP hands the same prefix sums from dispatch to combine as its "handle").
// With these counts no consumer needs an end-of-stream barrier.
//
// Streaming combine topology, for expert card d, forwarder card f and token owner r:
//   IPC ring   on f, from d, lane L   rows of owners r with local(r) == local(f), lane(r) == L
//   partial ring on r, from server S, channel c   fp32 partial sums of r's tokens in channel c
// lane(r) = server(r) mod lanes spreads destinations over forwarder cores; channel(t)
// splits a rank's tokens into contiguous ranges, one receiver core each. Each ring has
// one producer core and one consumer core.

#include <cstdint>
#include <vector>

#include "core/runtime/layer_context.h"

namespace moe {

struct CombinePlan {
  int lanes = 1;
  int channels = 1;
  // [card f][dLocal * lanes + lane]: rows card d sends to f's IPC ring of that lane.
  std::vector<std::vector<std::int64_t>> fwdRows;
  // [card f][server(r) * BS + t]: contributions server(f) holds for token t of the owner
  // r = (server(r), local(f)).
  std::vector<std::vector<std::int32_t>> fwdCount;
  // [card r][S * channels + c]: partial records r receives from server S in channel c.
  std::vector<std::vector<std::int64_t>> recvRecords;
  // [card r][t]: servers contributing to token t.
  std::vector<std::vector<std::int32_t>> recvServers;

  int lane(const LayerContext& ctx, int ownerRank) const { return ctx.serverOf(ownerRank) % lanes; }
  int channel(const LayerContext& ctx, int token) const {
    return static_cast<int>(static_cast<std::int64_t>(token) * channels / ctx.BS);
  }
};

// Reads the routing (balanced ids, keep mask) and the dispatch Offset/Length tables from
// the cards' GM.
CombinePlan buildCombinePlan(const LayerContext& ctx);

}  // namespace moe
