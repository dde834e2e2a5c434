#include "core/machine/ring_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>

#include "core/machine/resident_pages.h"

namespace moe {

namespace {
constexpr std::size_t kSlabBytes = std::size_t{2} << 20;

// Idle slabs of finished pools, zeroed, for the next pool in the process. Pools of several
// runs may live on several threads at once (moe-sim sweep -j, the workbench's compare):
// the list is only touched under the lock.
struct SlabCache {
  std::mutex mutex;
  std::vector<void*> slabs;                      // each kSlabBytes
  static constexpr std::size_t kMaxSlabs = 256;  // 512 MiB at most
  ~SlabCache() {
    for (void* p : slabs) munmap(p, kSlabBytes);
  }
};
SlabCache& cache() {
  static SlabCache c;
  return c;
}

void* mapSlab(std::size_t bytes) {
  if (bytes == kSlabBytes) {
    std::lock_guard lock(cache().mutex);
    if (!cache().slabs.empty()) {
      void* p = cache().slabs.back();
      cache().slabs.pop_back();
      return p;
    }
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void retireSlab(void* p, std::size_t bytes) {
  if (bytes == kSlabBytes) {
    // Only the pages ever written: the others are still the kernel's zero pages, and writing
    // them would fault them in. Outside the lock: the slab is no one else's yet.
    auto* b = static_cast<std::uint8_t*>(p);
    forEachResident(b, bytes,
                    [b](std::size_t off, std::size_t len) { std::memset(b + off, 0, len); });
    std::lock_guard lock(cache().mutex);
    if (cache().slabs.size() < SlabCache::kMaxSlabs) {
      cache().slabs.push_back(p);
      return;
    }
  }
  munmap(p, bytes);
}
}  // namespace

PagePool::~PagePool() {
  giveBackSlabs(/*toCache=*/true);
}

void PagePool::giveBackSlabs(bool toCache) {
  for (const auto& [p, n] : slabs_) {
    if (toCache)
      retireSlab(p, n);
    else
      munmap(p, n);
  }
  slabs_.clear();
  free_.clear();
  heldBytes_ = 0;
}

void PagePool::releaseCachedSlabs() {
  std::lock_guard lock(cache().mutex);
  for (void* p : cache().slabs) munmap(p, kSlabBytes);
  cache().slabs.clear();
}

std::size_t PagePool::cachedSlabBytes() {
  std::lock_guard lock(cache().mutex);
  return cache().slabs.size() * kSlabBytes;
}

std::uint8_t* PagePool::take() {
  if (free_.empty()) {
    // A slab is 2 MiB whatever the page size (the tail past the last whole page is unused),
    // so every pool can reuse any cached slab; a page larger than that is a slab alone.
    const std::size_t perSlab = std::max<std::size_t>(1, kSlabBytes / pageBytes_);
    const std::size_t bytes = pageBytes_ > kSlabBytes ? pageBytes_ : kSlabBytes;
    void* p = mapSlab(bytes);
    slabs_.emplace_back(p, bytes);
    heldBytes_ += perSlab * pageBytes_;
    auto* base = static_cast<std::uint8_t*>(p);
    for (std::size_t i = perSlab; i-- > 0;) free_.push_back(base + i * pageBytes_);
  }
  std::uint8_t* page = free_.back();
  free_.pop_back();
  peakInUse_ = std::max(peakInUse_, inUseBytes());
  return page;
}

void PagePool::give(std::uint8_t* page) {
  free_.push_back(page);
}

void PagePool::releaseIfIdle() {
  if (inUseBytes() == 0) giveBackSlabs(/*toCache=*/false);
}

RingPages::RingPages(PagePool& pool, int slots)
    : pool_(pool),
      page_(static_cast<std::size_t>(slots), nullptr),
      writtenEnd_(static_cast<std::size_t>(slots), 0) {}

std::int64_t RingPages::runFrom(std::int64_t off) const {
  const auto p = static_cast<std::int64_t>(pageBytes());
  return p - off % p;
}

std::uint8_t* RingPages::at(std::int64_t off) {
  const auto p = static_cast<std::int64_t>(pageBytes());
  std::uint8_t*& page = page_[static_cast<std::size_t>(off / p)];
  if (page == nullptr) page = pool_.take();
  return page + off % p;
}

std::size_t RingPages::slotOf(std::int64_t absolute) const {
  return static_cast<std::size_t>(absolute / static_cast<std::int64_t>(pageBytes())) % page_.size();
}

void RingPages::landed(std::int64_t begin, std::int64_t end) {
  const auto p = static_cast<std::int64_t>(pageBytes());
  for (std::int64_t a = begin; a < end; a = (a / p + 1) * p) {
    const std::size_t slot = slotOf(a);
    writtenEnd_[slot] = std::max(writtenEnd_[slot], std::min(end, (a / p + 1) * p));
  }
}

void RingPages::consumedTo(std::int64_t head) {
  const auto p = static_cast<std::int64_t>(pageBytes());
  // Only the slots between the last head seen and this one can have become free; a slot
  // kept back last time (it also held later data) is the first of them.
  const std::int64_t from = consumed_ / p * p;
  const std::int64_t slots = static_cast<std::int64_t>(page_.size());
  for (std::int64_t a = from, n = 0; a < head && n < slots; a += p, ++n) {
    const std::size_t slot = slotOf(a);
    if (page_[slot] != nullptr && writtenEnd_[slot] <= head) release(slot);
  }
  consumed_ = std::max(consumed_, head);
}

void RingPages::release(std::size_t slot) {
  pool_.give(page_[slot]);
  page_[slot] = nullptr;
}

void RingPages::releaseAll() {
  for (std::size_t s = 0; s < page_.size(); ++s)
    if (page_[s] != nullptr) release(s);
}

}  // namespace moe
