#include "core/machine/ring_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace moe {

namespace {
constexpr std::size_t kSlabBytes = std::size_t{2} << 20;
}

PagePool::~PagePool() {
  for (const auto& [p, n] : slabs_) munmap(p, n);
}

std::uint8_t* PagePool::take() {
  if (free_.empty()) {
    const std::size_t perSlab = std::max<std::size_t>(1, kSlabBytes / pageBytes_);
    const std::size_t bytes = perSlab * pageBytes_;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    slabs_.emplace_back(p, bytes);
    heldBytes_ += bytes;
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
  if (inUseBytes() != 0) return;
  for (const auto& [p, n] : slabs_) munmap(p, n);
  slabs_.clear();
  free_.clear();
  heldBytes_ = 0;
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
