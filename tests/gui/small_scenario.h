#pragma once
// A small MoE layer for GUI tests that run it end to end (sweeps, A/B): well under a second.

#include "core/scenario/scenario_json.h"

namespace moe::ui::test {

inline Scenario smallScenario() {
  Scenario sc = defaultScenario();
  sc.model.tokensPerRank = 16;
  sc.model.hidden = 512;
  sc.model.experts = 32;
  sc.model.topk = 4;
  sc.rings.setBoth(&RingTiling::chunkBytes, 4096);
  return sc;
}

}  // namespace moe::ui::test
