#pragma once
// Recycles the small blocks the engine makes and drops by the million: coroutine frames
// (every `co_await helper(...)` in a kernel creates a Task whose frame the compiler puts on
// the heap) and operation records (AiCore ops, LocalPtr::make). malloc and free
// were a tenth of the engine's time. Blocks come in a handful of sizes, so a per-thread
// free list per 64-byte size class hands them back without touching malloc. Under
// AddressSanitizer the pool is bypassed so that a use after free is still caught.

#include <cstddef>

namespace moe {

struct BlockPool {
  static void* allocate(std::size_t bytes);
  static void release(void* block, std::size_t bytes) noexcept;
};

// A standard allocator over BlockPool (LocalPtr makes its records with it).
template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(BlockPool::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { BlockPool::release(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace moe
