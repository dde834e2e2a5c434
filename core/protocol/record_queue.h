#pragma once
// A ring's record headers in flight, oldest first: a FIFO of pooled nodes (BlockPool).
//
// A run of 256 ranks holds 155,392 rings, and in its combine tens of thousands of them hold
// a record or two at once. A std::deque there costs its 64-B map and a 512-B block for the
// first record; a node per record costs what the records need, and freed nodes go to the
// next ring that writes instead of back to malloc.

#include <cstdint>
#include <new>
#include <utility>

#include "core/engine/block_pool.h"

namespace moe {

template <typename Meta>
class RecordQueue {
 public:
  // A record: its offset in the ring's byte stream and its header.
  struct Entry {
    std::int64_t offset;
    Meta meta;
  };

  RecordQueue() = default;
  RecordQueue(const RecordQueue&) = delete;
  RecordQueue& operator=(const RecordQueue&) = delete;
  ~RecordQueue() {
    while (!empty()) pop_front();
  }

  bool empty() const { return first_ == nullptr; }
  std::int64_t size() const { return size_; }
  const Entry& front() const { return first_->entry; }
  const Entry& back() const { return last_->entry; }

  void push_back(std::int64_t offset, const Meta& meta) {
    Node* n = new (BlockPool::allocate(sizeof(Node))) Node{nullptr, Entry{offset, meta}};
    (last_ ? last_->next : first_) = n;
    last_ = n;
    ++size_;
  }
  // Only when !empty().
  Entry pop_front() {
    Node* n = std::exchange(first_, first_->next);
    if (first_ == nullptr) last_ = nullptr;
    --size_;
    Entry e = std::move(n->entry);
    n->~Node();
    BlockPool::release(n, sizeof(Node));
    return e;
  }

 private:
  struct Node {
    Node* next;
    Entry entry;
  };
  Node* first_ = nullptr;
  Node* last_ = nullptr;
  std::int64_t size_ = 0;
};

}  // namespace moe
