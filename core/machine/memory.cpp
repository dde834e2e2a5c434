#include "core/machine/memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>

namespace moe {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kChunk = std::size_t{64} << 20;

// Chunks of finished runs, kept for the next run in this process (a CLI run of both
// designs, a benchmark loop): reusing warm pages avoids the kernel faulting and zeroing
// them again, which dominated wall time. Bounded, and only standard-size chunks. Shared
// by every run in the process, and runs may be on several threads at once (moe-sim sweep
// -j, the workbench's sweep, compare and live run): the list is only touched under the
// lock, or two arenas could be handed the same chunk.
struct ChunkPool {
  std::mutex mutex;
  std::vector<std::pair<std::uint8_t*, bool>> free;  // (base, huge pages)
  static constexpr std::size_t kMaxChunks = 24;      // 1.5 GiB of address space at most
  ~ChunkPool() {
    for (auto [p, huge] : free) munmap(p, kChunk);
  }
};
ChunkPool& pool() {
  static ChunkPool p;
  return p;
}
}  // namespace

std::uint8_t* GmArena::allocate(std::size_t n) {
  const std::size_t need = (std::max<std::size_t>(n, 1) + 63) / 64 * 64;
  if (chunks_.empty() || used_ + need > chunks_.back().size) {
    const std::size_t size = std::max(kChunk, (need + kHugePage - 1) / kHugePage * kHugePage);
    std::uint8_t* recycled = nullptr;
    if (size == kChunk) {
      std::lock_guard lock(pool().mutex);
      auto& freeList = pool().free;
      auto reuse = std::find_if(freeList.begin(), freeList.end(),
                                [&](auto& c) { return c.second == hugePages_; });
      if (reuse != freeList.end()) {
        recycled = reuse->first;
        freeList.erase(reuse);
      }
    }
    if (recycled) {
      chunks_.push_back({recycled, size, true});
    } else {
      void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      if (hugePages_) madvise(p, size, MADV_HUGEPAGE);  // advice only: 4 KiB pages work too
      chunks_.push_back({static_cast<std::uint8_t*>(p), size, false});
    }
    used_ = 0;
  }
  std::uint8_t* out = chunks_.back().base + used_;
  // A recycled chunk holds the last run's bytes: zero what is handed out (fresh mappings
  // are zero already). Every buffer starts zeroed, so runs stay deterministic.
  if (chunks_.back().recycled) std::memset(out, 0, need);
  used_ += need;
  return out;
}

void GmArena::release() {
  std::lock_guard lock(pool().mutex);
  for (const Chunk& c : chunks_) {
    // Sparse (window) chunks are returned to the OS: their touched pages would otherwise
    // stay resident unused, since dense arenas do not draw from them.
    if (hugePages_ && c.size == kChunk && pool().free.size() < ChunkPool::kMaxChunks)
      pool().free.emplace_back(c.base, hugePages_);
    else
      munmap(c.base, c.size);
  }
  chunks_.clear();
  used_ = 0;
}

}  // namespace moe
