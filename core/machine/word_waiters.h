#pragma once
// The cores suspended on a GM word, in the order they began to wait (the order they are
// woken in, which the event order depends on).
//
// A run of 256 ranks holds 310,784 ring head and tail words, and nearly all of them have no
// waiter or one at any time. A std::vector cost every word 24 B and a malloc per wait; this
// is one pointer, to the newest of a circular list of pooled nodes (the newest's `next` is
// the oldest), so adding at the back and visiting from the front are both O(1).

#include <coroutine>
#include <new>
#include <utility>

#include "core/engine/block_pool.h"

namespace moe {

class AiCore;

class WordWaiters {
 public:
  struct Waiter {
    AiCore* core;
    std::coroutine_handle<> handle;
  };

  WordWaiters() = default;
  WordWaiters(WordWaiters&& other) noexcept : newest_(std::exchange(other.newest_, nullptr)) {}
  WordWaiters& operator=(WordWaiters&& other) noexcept {
    if (this != &other) {
      clear();
      newest_ = std::exchange(other.newest_, nullptr);
    }
    return *this;
  }
  WordWaiters(const WordWaiters&) = delete;
  WordWaiters& operator=(const WordWaiters&) = delete;
  ~WordWaiters() { clear(); }

  bool empty() const { return newest_ == nullptr; }

  void push_back(AiCore* core, std::coroutine_handle<> handle) {
    Node* n = new (BlockPool::allocate(sizeof(Node))) Node{nullptr, Waiter{core, handle}};
    n->next = newest_ ? std::exchange(newest_->next, n) : n;
    newest_ = n;
  }

  // Calls fn(waiter) oldest first. fn must not change this list.
  template <typename Fn>
  void forEach(Fn&& fn) const {
    if (!newest_) return;
    const Node* n = newest_;
    do {
      n = n->next;
      fn(n->waiter);
    } while (n != newest_);
  }

  // Drops every waiter of `core`, keeping the others in order.
  void eraseCore(const AiCore* core) {
    if (!newest_) return;
    Node* prev = newest_;
    Node* n = newest_->next;
    for (;;) {
      Node* next = n->next;
      const bool last = n == newest_;
      if (n->waiter.core == core) {
        if (n == next) {  // the only node
          newest_ = nullptr;
        } else {
          prev->next = next;
          if (last) newest_ = prev;
        }
        destroy(n);
      } else {
        prev = n;
      }
      if (last) return;
      n = next;
    }
  }

  void clear() noexcept {
    if (!newest_) return;
    Node* n = std::exchange(newest_->next, nullptr);  // the oldest; the ring is now a chain
    newest_ = nullptr;
    while (n) destroy(std::exchange(n, n->next));
  }

 private:
  struct Node {
    Node* next;
    Waiter waiter;
  };
  static void destroy(Node* n) noexcept {
    n->~Node();
    BlockPool::release(n, sizeof(Node));
  }
  Node* newest_ = nullptr;
};

}  // namespace moe
