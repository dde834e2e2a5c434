#pragma once
// Memory the kernels address: named buffers in a card's HBM (GM) or in one core's UB.
// With payload "none", activation buffers keep their size but hold no bytes, so huge
// clusters still run the protocol and timing (DESIGN.md §2).

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/machine/label.h"
#include "core/machine/ring_pages.h"

namespace moe {

enum class MemSpace : std::uint8_t { Gm, Ub };

// Zero-filled bytes from calloc: large blocks arrive as untouched zero pages, so a 512 KiB
// ring that only ever carries a few records costs only the pages it touches.
class ByteStore {
 public:
  ByteStore() = default;
  explicit ByteStore(std::size_t n)
      : p_(static_cast<std::uint8_t*>(std::calloc(n ? n : 1, 1))), n_(n), owned_(true) {
    if (!p_) throw std::bad_alloc();
  }
  // A view of zeroed bytes owned elsewhere (a card's GM arena).
  static ByteStore view(std::uint8_t* p, std::size_t n) {
    ByteStore b;
    b.p_ = p;
    b.n_ = n;
    return b;
  }
  // A view of bytes a caller keeps and shares read-only (one input read by several runs,
  // see Machine::allocGmInput): no host memory of its own, and never written or dropped.
  static ByteStore sharedInput(const std::uint8_t* p, std::size_t n) {
    ByteStore b = view(const_cast<std::uint8_t*>(p), n);
    b.sharedInput_ = true;
    return b;
  }
  ByteStore(ByteStore&& o) noexcept
      : p_(o.p_), n_(o.n_), owned_(o.owned_), sharedInput_(o.sharedInput_) {
    o.p_ = nullptr, o.n_ = 0, o.owned_ = false, o.sharedInput_ = false;
  }
  ByteStore& operator=(ByteStore&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(owned_, o.owned_);
    std::swap(sharedInput_, o.sharedInput_);
    return *this;
  }
  ByteStore(const ByteStore&) = delete;
  ByteStore& operator=(const ByteStore&) = delete;
  ~ByteStore() {
    if (owned_) std::free(p_);
  }

  bool empty() const { return n_ == 0; }
  bool sharedInput() const { return sharedInput_; }
  std::size_t size() const { return n_; }
  std::uint8_t* data() { return p_; }
  const std::uint8_t* data() const { return p_; }
  std::uint8_t* begin() { return p_; }
  std::uint8_t* end() { return p_ + n_; }

 private:
  std::uint8_t* p_ = nullptr;
  std::size_t n_ = 0;
  bool owned_ = false;
  bool sharedInput_ = false;
};

// Allocator for one card's GM. Every free byte of an arena is zero, so allocation never
// writes: untouched pages of a fresh mapping stay unbacked (a worst-case window costs only
// the pages written into it), and memory is zeroed once, when a buffer is freed, and only
// where it was touched (mincore). Freed ranges are reused by later buffers of the run, so
// pages the kernel has already faulted and zeroed are written again instead of new ones:
// first-touch faults and kernel page zeroing were most of a full-payload run's system
// time. A finished run's chunks stay mapped and warm (zeroed where written) for the next
// run in the process.
// Dense arenas use transparent huge pages (fewer faults); sparse ones (worst-case windows)
// 4 KiB pages, so unwritten parts cost nothing.
class GmArena {
 public:
  // Chunks of 64 MiB, or `smallChunks` of 1 MiB for arenas that only ever hold metadata
  // (payload "none"), so hundreds of cards do not reserve gigabytes of address space.
  explicit GmArena(bool hugePages = true, bool smallChunks = false)
      : hugePages_(hugePages && !smallChunks), smallChunks_(smallChunks) {}
  GmArena(const GmArena&) = delete;
  GmArena& operator=(const GmArena&) = delete;
  GmArena(GmArena&& o) noexcept
      : chunks_(std::move(o.chunks_)), hugePages_(o.hugePages_), smallChunks_(o.smallChunks_) {
    o.chunks_.clear();
  }
  ~GmArena() { release(); }
  std::uint8_t* allocate(std::size_t n);  // zeroed, 64-B aligned
  // Returns [p, p + n) of an earlier allocate(n): zeroed where touched, reusable after.
  // `keepWarm`: zero touched pages in place for a later buffer of the run to reuse; else
  // give whole pages back to the OS (nothing will be allocated after this free).
  void free(std::uint8_t* p, std::size_t n, bool keepWarm = true);
  bool owns(const std::uint8_t* p) const;
  // Frees everything. Standard dense chunks go to the process-wide pool, warm and zeroed;
  // other chunks, and split huge pages, go back to the OS.
  void release();
  // Bytes of the live allocations that are resident (touched). Free ranges are left out:
  // they are zero and kept warm for reuse, a cache rather than what the run holds.
  std::size_t residentBytes() const;
  // Address space this arena holds (its chunks' sizes).
  std::size_t reservedBytes() const;
  // Unmaps the chunks finished runs left for reuse (process-wide), so the next run starts
  // from cold memory: its resident pages are then exactly the ones it wrote.
  static void releasePooledChunks();
  // Bytes the pool keeps resident for the next run, and the address space it keeps mapped.
  static std::size_t pooledResidentBytes();
  static std::size_t pooledMappedBytes();

 private:
  struct Chunk {
    std::uint8_t* base;
    std::size_t size;
    std::map<std::size_t, std::size_t> free;  // offset -> length, coalesced
  };
  std::vector<Chunk> chunks_;
  bool hugePages_ = true;
  bool smallChunks_ = false;
};

struct Buffer {
  Label name;
  MemSpace space;
  int card;
  int core;  // owning core for UB, -1 for GM
  std::int64_t size;
  ByteStore bytes;  // empty when the buffer is virtual (payload none) or paged
  // A ring's data area: its bytes live in pages held only while they have unread data.
  std::unique_ptr<RingPages> pages = nullptr;
  // Which of `bytes` are dead (see dropDeadBytes); made on first use. Held by pointer: few
  // buffers ever drop bytes, and a 256-rank run holds some 380,000 buffers.
  struct DeadCounts {
    std::vector<std::uint16_t> perPage;        // dead bytes per host page
    std::vector<std::uint16_t> pagesPerGroup;  // all-dead pages per group of pages
  };
  std::unique_ptr<DeadCounts> dead;

  bool hasBytes() const { return !bytes.empty() || pages != nullptr || size == 0; }
  std::uint8_t* data() { return bytes.data(); }
  const std::uint8_t* data() const { return bytes.data(); }
  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
};

// A byte range of one buffer.
struct Region {
  Buffer* buf = nullptr;
  std::int64_t offset = 0;
  std::int64_t length = 0;

  Region sub(std::int64_t off, std::int64_t len) const {
    if (off < 0 || len < 0 || off + len > length)
      throw std::out_of_range("sub-region outside " + (buf ? buf->name.str() : std::string("?")));
    return Region{buf, offset + off, len};
  }
  std::uint8_t* ptr() const { return buf->bytes.empty() ? nullptr : buf->bytes.data() + offset; }
};

// [off, off + len) of a GM buffer will never be read again (a row a kernel has consumed):
// host pages whose bytes inside the buffer are all dead go back to the OS, so a tensor that
// is read once costs less and less memory while it is read. They read as zero afterwards.
// Pages the buffer shares with a neighbour are kept. Each byte may be declared dead once.
void dropDeadBytes(Buffer& b, std::int64_t off, std::int64_t len);

// The bytes of a landed copy, [src, src + length) to dst, through the pages of a paged
// buffer. Nothing is copied when either side holds no bytes (payload "none").
void copyBytes(const Region& dst, const Region& src);

// Gives back the warm memory finished runs left for the next one in this process (GM
// chunks and ring page slabs), so nothing of them counts in the process's memory: a test
// or a benchmark measuring one run's resident memory, or the workbench once a run is over.
void releaseWarmHostMemory();
// What that warm memory holds: resident bytes, and address space mapped. The next run
// reuses it first, so it counts as available to that run.
struct WarmHostMemory {
  std::size_t residentBytes = 0;
  std::size_t mappedBytes = 0;
};
WarmHostMemory warmHostMemory();

inline Region whole(Buffer* b) {
  return Region{b, 0, b->size};
}

}  // namespace moe
