#pragma once
// The streaming combine's three roles (combine_streaming.cpp has the protocol in pseudo-code
// and the launcher): the rings they share, and one coroutine per role, each in a file of its
// own: combine_streaming_sender.cpp, combine_streaming_forwarder.cpp and the receiver in
// combine_streaming.cpp.

#include <memory>
#include <vector>

#include "core/engine/task.h"
#include "core/plan/combine_plan.h"
#include "core/protocol/ring_buffer.h"
#include "core/runtime/layer_context.h"

namespace moe::streaming_combine {

struct CombineRings {
  std::vector<std::vector<RingBuffer*>> ipc;      // [f][dLocal * lanes + lane]
  std::vector<std::vector<RingBuffer*>> partial;  // [r][S * channels + c]
  CombinePlan plan;
  std::vector<int> sendersLeft;  // [card]: sender cores still reading its expert_out
};

struct SenderTarget {
  int f;
  int lane;
};

// Expert card d's sender core: its targets' rows (or per-token sums) into the IPC rings.
Task combineSender(LayerContext& ctx, int d, AiCore& core, std::shared_ptr<CombineRings> rings,
                   std::vector<SenderTarget> targets);
// Card f's forwarder lane: sums the IPC rings' rows into partials, sends them on.
Task forwarderCore(LayerContext& ctx, int f, AiCore& core,
                   std::shared_ptr<const CombineRings> rings, int lane);

}  // namespace moe::streaming_combine
