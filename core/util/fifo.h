#pragma once
// A FIFO on a circular buffer that is allocated on first use and kept (a core's pipes).
// std::deque allocated a 512-byte block and its map up front for each of a core's five
// pipes, most of them never used, and freed and allocated a block every 32 ops on the hot
// path. It never shrinks on its own (releaseStorage gives the buffer back when empty), so it
// suits queues that stay short. A ring's records in flight use a RecordQueue instead
// (core/protocol/record_queue.h): pooled nodes, nothing held once the ring is drained.

#include <cstddef>
#include <utility>
#include <vector>

namespace moe {

template <typename T>
class Fifo {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const T& front() const { return items_[head_]; }
  const T& back() const { return items_[(head_ + size_ - 1) & (items_.size() - 1)]; }
  void push_back(T item) {
    if (size_ == items_.size()) grow();
    items_[(head_ + size_) & (items_.size() - 1)] = std::move(item);
    ++size_;
  }
  // Gives the buffer back (the queue must be empty): a core's pipe queue grows to what its
  // busiest kernel queued, and thousands of cores holding that between kernels add up.
  void releaseStorage() {
    items_ = std::vector<T>();
    head_ = 0;
  }
  void pop_front() {
    items_[head_] = T();  // drops the reference now, as the deque did
    head_ = (head_ + 1) & (items_.size() - 1);
    --size_;
  }

 private:
  void grow() {  // capacity stays a power of two, so wrapping is a mask
    std::vector<T> bigger(items_.empty() ? 4 : items_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i)
      bigger[i] = std::move(items_[(head_ + i) & (items_.size() - 1)]);
    items_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace moe
