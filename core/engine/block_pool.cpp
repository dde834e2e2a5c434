#include "core/engine/block_pool.h"

#include <array>
#include <new>
#include <vector>

namespace moe {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif

constexpr std::size_t kGrain = 64;
constexpr std::size_t kClasses = 64;  // blocks up to 4 KiB are pooled
// Enough for the blocks a stage frees and makes again in turn (an op, its hooks, a frame);
// what a burst frees beyond it (the layout stage's million row stores) goes back to malloc
// for any size to reuse. 65,536 kept some 15 MB of idle blocks through a 256-rank combine
// (6% of its peak RSS) and was no faster: scaling_bench gave 152/282/1261 ns per event at
// 16/64/256 ranks with it, 144/259/1192 with this, on one host half an hour apart.
constexpr std::size_t kMaxKeptPerClass = 1 << 10;

std::size_t sizeClass(std::size_t bytes) {
  return (bytes + kGrain - 1) / kGrain;
}

// Per thread: runs on different threads (sweeps, the workbench's worker) never share a
// list, so no lock. A block freed on another thread than the one that made it simply joins
// that thread's list; every block is an ordinary operator-new block, so that is safe.
// Set once this thread's lists are gone (thread exit): a block released after that, by a
// destructor that runs later in the same thread, goes straight back to operator delete.
thread_local bool listsGone = false;

struct FreeLists {
  std::array<std::vector<void*>, kClasses + 1> byClass;
  ~FreeLists() {
    listsGone = true;
    for (auto& list : byClass)
      for (void* p : list) ::operator delete(p);
  }
};

FreeLists& lists() {
  thread_local FreeLists l;
  return l;
}

}  // namespace

void* BlockPool::allocate(std::size_t bytes) {
  const std::size_t c = sizeClass(bytes);
  if (!kPooled || c > kClasses || listsGone) return ::operator new(bytes);
  auto& list = lists().byClass[c];
  if (list.empty()) return ::operator new(c* kGrain);
  void* p = list.back();
  list.pop_back();
  return p;
}

void BlockPool::release(void* block, std::size_t bytes) noexcept {
  const std::size_t c = sizeClass(bytes);
  if (!kPooled || c > kClasses || listsGone) {
    ::operator delete(block);
    return;
  }
  auto& list = lists().byClass[c];
  if (list.size() >= kMaxKeptPerClass) {
    ::operator delete(block);
    return;
  }
  try {
    list.push_back(block);
  } catch (...) {  // no room to remember it: give it back instead
    ::operator delete(block);
  }
}

}  // namespace moe
