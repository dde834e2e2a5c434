#pragma once
// Host storage for a ring's data area, one page per chunk slot. A ring reserves
// queue_chunks x chunk_bytes of its card's GM, as the real one does, but the host holds a
// slot's page only while it has unread data: the page is taken from a pool when a write
// lands in the slot and given back when the consumer's head has passed everything written
// into it. Without this, the thousands of rings of a large run (every card pair, every
// forwarder channel) each kept their whole capacity resident once data had gone round,
// and the kernel's first-touch zeroing of those pages was most of a full-payload run's
// time.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace moe {

// Pages of one size, made in 2 MiB slabs and reused. A page comes back with the bytes its
// last ring left in it, and is not zeroed: the ring protocol reads only bytes written since
// (a read past the published tail is a recorded violation), and a run's pool is used by one
// thread in event order, so even a faulty read sees the same bytes on every run. When a
// run ends, its pools' slabs are zeroed and kept, warm, in a process-wide cache for the
// pools of later runs (a sweep's next point, the second design of `run -j 1`): a warm page
// costs a write at memory speed, a fresh one a fault and the kernel's zeroing. Zeroed, a
// cached slab reads as a fresh mapping would, so what a run sees never depends on what ran
// before it.
class PagePool {
 public:
  explicit PagePool(std::size_t pageBytes) : pageBytes_(pageBytes) {}
  PagePool(const PagePool&) = delete;
  PagePool& operator=(const PagePool&) = delete;
  ~PagePool();

  std::size_t pageBytes() const { return pageBytes_; }
  std::uint8_t* take();
  void give(std::uint8_t* page);
  // With no page in use, unmaps every slab (the pool starts again from nothing). Between
  // stages the slabs go back to the OS, not to the cache: held idle through the experts
  // stage, they raised a run's peak by 5%.
  void releaseIfIdle();
  // Unmaps the slabs the cache holds (process-wide), and reports the bytes it holds.
  static void releaseCachedSlabs();
  static std::size_t cachedSlabBytes();
  // Host bytes the pool has made (pages in use and pages waiting for reuse).
  std::size_t heldBytes() const { return heldBytes_; }
  // Of those, the pages some ring holds now.
  std::size_t inUseBytes() const { return heldBytes_ - free_.size() * pageBytes_; }
  std::size_t peakInUseBytes() const { return peakInUse_; }

 private:
  void giveBackSlabs(bool toCache);  // to the process's cache, or to the OS

  std::size_t pageBytes_;
  std::size_t heldBytes_ = 0;
  std::size_t peakInUse_ = 0;
  std::vector<std::uint8_t*> free_;
  std::vector<std::pair<void*, std::size_t>> slabs_;
};

// The page table of one ring's data area: slots of `pageBytes`, `slots` of them.
class RingPages {
 public:
  RingPages(PagePool& pool, int slots);
  RingPages(const RingPages&) = delete;
  RingPages& operator=(const RingPages&) = delete;
  ~RingPages() { releaseAll(); }

  std::size_t pageBytes() const { return pool_.pageBytes(); }
  // Bytes from data-area offset `off` to the end of its page.
  std::int64_t runFrom(std::int64_t off) const;
  // The byte at data-area offset `off`; the slot takes a page if it has none.
  std::uint8_t* at(std::int64_t off);

  // Bookkeeping in absolute ring offsets (the ring's byte count since the start):
  // [begin, end) has landed, so each slot it touches holds data up to there.
  void landed(std::int64_t begin, std::int64_t end);
  // The consumer's head is at `head`: slots whose data all lies before it go back to the
  // pool.
  void consumedTo(std::int64_t head);
  void releaseAll();

 private:
  void release(std::size_t slot);
  std::size_t slotOf(std::int64_t absolute) const;  // the slot an absolute ring offset is in

  PagePool& pool_;
  std::vector<std::uint8_t*> page_;       // per slot, null when not held
  std::vector<std::int64_t> writtenEnd_;  // per slot: absolute end of its last data
  std::int64_t consumed_ = 0;             // head seen so far
};

}  // namespace moe
