#include "core/machine/memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "core/machine/resident_pages.h"

namespace moe {

namespace {
constexpr std::size_t kPage = 4096;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kChunk = std::size_t{64} << 20;
constexpr std::size_t kSmallChunk = std::size_t{1} << 20;

// Chunks of finished runs, kept mapped and warm for the next run in this process (the
// second design of `run -j 1`, a sweep's next point, a benchmark loop): a warm page is
// written again at memory speed, where a fresh one costs a fault and the kernel's zeroing
// (most of a repeated data path's time). A pooled chunk is all zero (GmArena's invariant):
// its live ranges are zeroed where touched when it is pooled. Huge pages that a run's
// dropDeadBytes split keep only some of their small pages; such a 2 MiB unit goes back to
// the OS whole, so the next run faults it afresh as one huge page, not 4 KiB at a time.
// Chunks are handed out in the order they were pooled, so each card of a next run of the
// same shape gets back the chunk it wrote: handed out last-in first-out, they went to other
// cards, whose writes reached pages the first run had not faulted (49 huge-page faults more
// and 2.5x the time on the next data path). Bounded, and only standard-size dense chunks.
// Shared by every run in the process, and runs may be on several threads at once (moe-sim
// sweep -j, the workbench's sweep, compare and live run): the list is only touched under
// the lock, or two arenas could be handed the same chunk.
struct ChunkPool {
  std::mutex mutex;
  std::vector<std::uint8_t*> free;
  static constexpr std::size_t kMaxChunks = 64;  // 4 GiB of address space at most
  ~ChunkPool() {
    for (std::uint8_t* p : free) munmap(p, kChunk);
  }
};
ChunkPool& pool() {
  static ChunkPool p;
  return p;
}

// Restores the all-zero invariant on [p, p + n). Dense memory is zeroed in place where it
// was touched, so its pages stay for reuse; sparse memory gives whole pages back to the OS
// (a window's touched pages are scattered and rarely reused by the same arena).
void zeroTouched(std::uint8_t* p, std::size_t n, bool dense) {
  forEachResident(p, n, [&](std::size_t off, std::size_t len) {
    std::uint8_t* b = p + off;
    const auto ab = reinterpret_cast<std::uintptr_t>(b);
    const std::uintptr_t in0 = (ab + kPage - 1) / kPage * kPage, in1 = (ab + len) / kPage * kPage;
    if (dense || in1 <= in0) {
      std::memset(b, 0, len);
      return;
    }
    std::memset(b, 0, in0 - ab);
    madvise(reinterpret_cast<void*>(in0), in1 - in0, MADV_DONTNEED);
    std::memset(reinterpret_cast<std::uint8_t*>(in1), 0, ab + len - in1);
  });
}

// Makes a finished run's chunk all zero and warm for the next run. Each huge-page unit
// (2 MiB-aligned, clipped to the chunk) whose pages are all resident, an intact huge page,
// keeps them, zeroed where a live range lies; a unit with only some pages resident (split
// by dropDeadBytes) goes back to the OS whole.
void recycleWarm(std::uint8_t* base, std::size_t size,
                 const std::map<std::size_t, std::size_t>& freeRanges) {
  const auto a = reinterpret_cast<std::uintptr_t>(base);
  for (std::uintptr_t u0 = a, u1; u0 < a + size; u0 = u1) {
    u1 = std::min(a + size, (u0 / kHugePage + 1) * kHugePage);
    std::size_t held = 0;
    forEachResident(base + (u0 - a), u1 - u0, [&](std::size_t, std::size_t len) { held += len; });
    if (held == 0) continue;
    if (held < u1 - u0) {
      madvise(reinterpret_cast<void*>(u0), u1 - u0, MADV_DONTNEED);
      continue;
    }
    // Live ranges are the gaps between free ones (free bytes are already zero).
    const std::size_t end = u1 - a;
    std::size_t at = u0 - a;
    auto next = freeRanges.upper_bound(at);
    if (next != freeRanges.begin())
      at = std::max(at, std::prev(next)->first + std::prev(next)->second);
    for (; at < end; ++next) {
      const std::size_t liveEnd = next == freeRanges.end() ? end : std::min(end, next->first);
      if (liveEnd > at) std::memset(base + at, 0, liveEnd - at);
      if (next == freeRanges.end()) break;
      at = next->first + next->second;
    }
  }
}
}  // namespace

void copyBytes(const Region& dst, const Region& src) {
  const std::int64_t n = dst.length;
  if (n <= 0) return;
  // The tokens every design reads in place (Machine::allocGmInput): a copy landing there
  // would change another design's input, on another thread.
  if (dst.buf->bytes.sharedInput())
    throw std::logic_error("a copy into the shared input " + dst.buf->name.str());
  RingPages* dp = dst.buf->pages.get();
  RingPages* sp = src.buf->pages.get();
  if (dp == nullptr && sp == nullptr) {
    std::uint8_t* d = dst.ptr();
    const std::uint8_t* s = src.ptr();
    if (d && s) std::memmove(d, s, static_cast<std::size_t>(n));
    return;
  }
  if ((dp == nullptr && dst.ptr() == nullptr) || (sp == nullptr && src.ptr() == nullptr)) return;
  // Page by page: a run of bytes that is contiguous on both sides at a time.
  for (std::int64_t done = 0; done < n;) {
    const std::int64_t d0 = dst.offset + done, s0 = src.offset + done;
    std::int64_t run = n - done;
    if (dp) run = std::min(run, dp->runFrom(d0));
    if (sp) run = std::min(run, sp->runFrom(s0));
    std::uint8_t* d = dp ? dp->at(d0) : dst.buf->bytes.data() + d0;
    const std::uint8_t* s = sp ? sp->at(s0) : src.buf->bytes.data() + s0;
    std::memmove(d, s, static_cast<std::size_t>(run));
    done += run;
  }
}

void GmArena::releasePooledChunks() {
  std::lock_guard lock(pool().mutex);
  for (std::uint8_t* p : pool().free) munmap(p, kChunk);
  pool().free.clear();
}

std::size_t GmArena::pooledResidentBytes() {
  std::lock_guard lock(pool().mutex);
  std::size_t total = 0;
  for (std::uint8_t* p : pool().free)
    forEachResident(p, kChunk, [&](std::size_t, std::size_t len) { total += len; });
  return total;
}

std::size_t GmArena::pooledMappedBytes() {
  std::lock_guard lock(pool().mutex);
  return pool().free.size() * kChunk;
}

WarmHostMemory warmHostMemory() {
  const std::size_t slabs = PagePool::cachedSlabBytes();
  return {GmArena::pooledResidentBytes() + slabs, GmArena::pooledMappedBytes() + slabs};
}

void releaseWarmHostMemory() {
  GmArena::releasePooledChunks();
  PagePool::releaseCachedSlabs();
}

std::uint8_t* GmArena::allocate(std::size_t n) {
  const std::size_t need = (std::max<std::size_t>(n, 1) + 63) / 64 * 64;
  for (Chunk& c : chunks_)
    for (auto it = c.free.begin(); it != c.free.end(); ++it) {
      if (it->second < need) continue;
      const auto [off, len] = *it;
      c.free.erase(it);
      if (len > need) c.free.emplace(off + need, len - need);
      return c.base + off;
    }
  const std::size_t unit = smallChunks_ ? kPage : kHugePage;
  const std::size_t size =
      std::max(smallChunks_ ? kSmallChunk : kChunk, (need + unit - 1) / unit * unit);
  std::uint8_t* base = nullptr;
  if (size == kChunk && hugePages_) {
    std::lock_guard lock(pool().mutex);
    if (!pool().free.empty()) {
      base = pool().free.front();
      pool().free.erase(pool().free.begin());
    }
  }
  if (!base) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Advice only: 4 KiB pages work too. Sparse (window) arenas ask for small pages even
    // where the kernel would hand out huge ones unasked, so a window costs what is written.
    madvise(p, size, hugePages_ ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    base = static_cast<std::uint8_t*>(p);
  }
  Chunk& c = chunks_.emplace_back(Chunk{base, size, {}});
  if (size > need) c.free.emplace(need, size - need);
  return base;
}

bool GmArena::owns(const std::uint8_t* p) const {
  return std::any_of(chunks_.begin(), chunks_.end(),
                     [p](const Chunk& c) { return p >= c.base && p < c.base + c.size; });
}

void GmArena::free(std::uint8_t* p, std::size_t n, bool keepWarm) {
  const std::size_t need = (std::max<std::size_t>(n, 1) + 63) / 64 * 64;
  auto c = std::find_if(chunks_.begin(), chunks_.end(),
                        [p](const Chunk& k) { return p >= k.base && p < k.base + k.size; });
  if (c == chunks_.end()) throw std::logic_error("GmArena::free of memory it does not own");
  zeroTouched(p, need, hugePages_ && keepWarm);
  std::size_t off = static_cast<std::size_t>(p - c->base), len = need;
  // Coalesce with the free neighbours, so a later large buffer finds the whole hole.
  auto next = c->free.lower_bound(off);
  if (next != c->free.end() && next->first == off + len) {
    len += next->second;
    next = c->free.erase(next);
  }
  if (next != c->free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      off = prev->first;
      len += prev->second;
      c->free.erase(prev);
    }
  }
  c->free.emplace(off, len);
}

std::size_t GmArena::residentBytes() const {
  std::size_t total = 0;
  auto count = [&](std::uint8_t* p, std::size_t n) {
    forEachResident(p, n, [&](std::size_t, std::size_t len) { total += len; });
  };
  for (const Chunk& c : chunks_) {
    std::size_t at = 0;  // the allocated ranges are the gaps between free ones
    for (const auto& [off, len] : c.free) {
      count(c.base + at, off - at);
      at = off + len;
    }
    count(c.base + at, c.size - at);
  }
  return total;
}

std::size_t GmArena::reservedBytes() const {
  std::size_t total = 0;
  for (const Chunk& c : chunks_) total += c.size;
  return total;
}

void GmArena::release() {
  for (Chunk& c : chunks_) {
    // Standard dense chunks stay mapped and warm in the pool while it has room; sparse and
    // odd-size chunks are unmapped.
    bool pooled = false;
    if (hugePages_ && c.size == kChunk) {
      recycleWarm(c.base, c.size, c.free);
      std::lock_guard lock(pool().mutex);
      if (pool().free.size() < ChunkPool::kMaxChunks) {
        pool().free.push_back(c.base);
        pooled = true;
      }
    }
    if (!pooled) munmap(c.base, c.size);
  }
  chunks_.clear();
}

void dropDeadBytes(Buffer& b, std::int64_t off, std::int64_t len) {
  if (b.bytes.empty() || len <= 0) return;
  if (b.bytes.sharedInput())  // its pages belong to the caller and to other runs
    throw std::logic_error("dead bytes declared in the shared input " + b.name.str());
  if (off < 0 || off + len > static_cast<std::int64_t>(b.bytes.size()))
    throw std::out_of_range("dead bytes outside " + b.name.str());
  // Pages go back in groups: each madvise flushes the TLB, which costs more on a VM than
  // giving back a few pages later saves.
  constexpr std::uintptr_t kGroupPages = 64;
  const auto base = reinterpret_cast<std::uintptr_t>(b.bytes.data());
  const std::uintptr_t end = base + b.bytes.size();
  // The pages wholly inside the buffer; pages shared with a neighbour are never dropped.
  const std::uintptr_t in0 = (base + kPage - 1) / kPage, in1 = end / kPage;
  const std::uintptr_t first = base / kPage;
  if (!b.dead) {
    b.dead = std::make_unique<Buffer::DeadCounts>();
    b.dead->perPage.assign((end - 1) / kPage - first + 1, 0);
    b.dead->pagesPerGroup.assign((end - 1) / kPage / kGroupPages - first / kGroupPages + 1, 0);
  }
  const std::uintptr_t a = base + static_cast<std::uintptr_t>(off), e = a + len;
  for (std::uintptr_t page = a / kPage; page * kPage < e; ++page) {
    const std::uintptr_t p0 = page * kPage, p1 = p0 + kPage;
    std::uint16_t& dead = b.dead->perPage[page - first];
    dead = static_cast<std::uint16_t>(dead + (std::min(p1, e) - std::max(p0, a)));
    if (dead > std::min(p1, end) - std::max(p0, base))  // more than its bytes in the buffer
      throw std::logic_error("bytes of " + b.name.str() + " declared dead twice");
    if (dead < kPage || page < in0 || page >= in1) continue;
    const std::uintptr_t group = page / kGroupPages;
    const std::uintptr_t g0 = std::max(group * kGroupPages, in0);
    const std::uintptr_t g1 = std::min(group * kGroupPages + kGroupPages, in1);
    std::uint16_t& deadPages = b.dead->pagesPerGroup[group - first / kGroupPages];
    if (++deadPages == g1 - g0)
      madvise(reinterpret_cast<void*>(g0 * kPage), (g1 - g0) * kPage, MADV_DONTNEED);
  }
}

}  // namespace moe
