#pragma once
// What an MoE-layer design reserves and writes for its dispatch and combine buffers, per
// card: the result of the design's memory rule, which the up-front memory check
// (memory_estimate.h) adds to the layer's own tensors. Each rule sits next to the registry
// entry that names it, in the design's file (core/run/designs/<name>.cpp).

#include <cstdint>
#include <string_view>

namespace moe {

struct DesignMemory {
  std::string_view label;  // for messages: "rings (dispatch and combine)"
  // Emulated GM reserved for the design's communication buffers.
  std::int64_t reservedBytes = 0;
  // Host bytes the buffers take as written (GM is allocated lazily: a worst-case window
  // costs what is written into it), at the dispatch's and the combine's busiest moment.
  std::int64_t dispatchWritten = 0;
  std::int64_t combineWritten = 0;
};

}  // namespace moe
