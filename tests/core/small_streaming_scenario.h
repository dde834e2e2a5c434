#pragma once
// A small streaming-design scenario the core tests start from: a few cards, short
// non-32-aligned rows (hidden 72: 144-B rows), 2 experts per rank, rings of 2 KiB chunks,
// and a few cores per role. Each test overrides what it is about.

#include <string>
#include <utility>

#include "core/scenario/scenario.h"

namespace moe::test {

inline Scenario smallStreamingScenario(int servers, int cardsPerServer,
                                       std::string name = "small-streaming") {
  Scenario s;
  s.name = std::move(name);
  s.cluster.servers = servers;
  s.cluster.cardsPerServer = cardsPerServer;
  s.hardware.cardsPerServer = cardsPerServer;
  s.model.tokensPerRank = 16;
  s.model.hidden = 72;
  s.model.topk = 4;
  s.model.experts = 2 * servers * cardsPerServer;
  s.model.intermediate = 32;
  s.rings.setBoth(RingTiling{2048, 4, 2, 3, 2});
  s.dispatchImpl = Design::Streaming;
  return s;
}

}  // namespace moe::test
