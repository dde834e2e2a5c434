#pragma once
// The workbench holds no warm memory while idle: each background request (Compare, Tune,
// Sweep, A/B) gives back, however it ends (a result, an error, a cancel), the memory its
// runs left warm for a next run in the process.

#include "core/machine/memory.h"

namespace moe::ui {

class WarmMemoryGivenBackAtEnd {
 public:
  WarmMemoryGivenBackAtEnd() = default;
  WarmMemoryGivenBackAtEnd(const WarmMemoryGivenBackAtEnd&) = delete;
  WarmMemoryGivenBackAtEnd& operator=(const WarmMemoryGivenBackAtEnd&) = delete;
  ~WarmMemoryGivenBackAtEnd() { releaseWarmHostMemory(); }
};

}  // namespace moe::ui
