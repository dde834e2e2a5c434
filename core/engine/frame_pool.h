#pragma once
// Recycles coroutine frames. Every `co_await helper(...)` in a kernel creates a Task whose
// frame the compiler allocates on the heap; at millions of awaits per run, malloc and free
// were a tenth of the engine's time. Frames come in a handful of sizes (one per coroutine
// function), so a per-thread free list per 64-byte size class hands them back without
// touching malloc. Under AddressSanitizer the pool is bypassed so that a use after free of
// a frame is still caught.

#include <cstddef>

namespace moe {

struct FramePool {
  static void* allocate(std::size_t bytes);
  static void release(void* frame, std::size_t bytes) noexcept;
};

}  // namespace moe
