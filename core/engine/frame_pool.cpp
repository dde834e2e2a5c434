#include "core/engine/frame_pool.h"

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
constexpr std::size_t kClasses = 64;               // frames up to 4 KiB are pooled
constexpr std::size_t kMaxKeptPerClass = 1 << 16;  // bounds what an idle thread keeps

std::size_t sizeClass(std::size_t bytes) {
  return (bytes + kGrain - 1) / kGrain;
}

// Per thread: runs on different threads (sweeps, the workbench's worker) never share a
// list, so no lock. A frame freed on another thread than the one that made it simply joins
// that thread's list; every block is an ordinary operator-new block, so that is safe.
struct FreeLists {
  std::array<std::vector<void*>, kClasses + 1> byClass;
  ~FreeLists() {
    for (auto& list : byClass)
      for (void* p : list) ::operator delete(p);
  }
};

FreeLists& lists() {
  thread_local FreeLists l;
  return l;
}

}  // namespace

void* FramePool::allocate(std::size_t bytes) {
  const std::size_t c = sizeClass(bytes);
  if (!kPooled || c > kClasses) return ::operator new(bytes);
  auto& list = lists().byClass[c];
  if (list.empty()) return ::operator new(c* kGrain);
  void* p = list.back();
  list.pop_back();
  return p;
}

void FramePool::release(void* frame, std::size_t bytes) noexcept {
  const std::size_t c = sizeClass(bytes);
  if (!kPooled || c > kClasses) {
    ::operator delete(frame);
    return;
  }
  auto& list = lists().byClass[c];
  if (list.size() >= kMaxKeptPerClass) {
    ::operator delete(frame);
    return;
  }
  try {
    list.push_back(frame);
  } catch (...) {  // no room to remember it: give it back instead
    ::operator delete(frame);
  }
}

}  // namespace moe
