#include "core/machine/memory.h"

#include <sys/mman.h>

#include <algorithm>

namespace moe {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kChunk = std::size_t{64} << 20;
}  // namespace

std::uint8_t* GmArena::allocate(std::size_t n) {
  const std::size_t need = (std::max<std::size_t>(n, 1) + 63) / 64 * 64;
  if (chunks_.empty() || used_ + need > chunks_.back().size) {
    const std::size_t size = std::max(kChunk, (need + kHugePage - 1) / kHugePage * kHugePage);
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (hugePages_) madvise(p, size, MADV_HUGEPAGE);  // advice only: 4 KiB pages work too
    chunks_.push_back({static_cast<std::uint8_t*>(p), size});
    used_ = 0;
  }
  std::uint8_t* out = chunks_.back().base + used_;
  used_ += need;
  return out;
}

void GmArena::release() {
  for (const Chunk& c : chunks_) munmap(c.base, c.size);
  chunks_.clear();
  used_ = 0;
}

}  // namespace moe
