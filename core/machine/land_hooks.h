#pragma once
// Hooks run when an op lands, in the order they were added. Most ops get none and nearly
// all others one or two (a fence waiting for it, a ring's landing check), so the op holds
// only the head of a list of pooled nodes: inline std::function slots made every op record
// 96 B larger, and at 256 ranks the layout stage keeps about a million ops alive at once.
//
// A node holds its hook in place when it fits in 40 B (a ring's landing check, a fence's
// wake-up): std::function keeps only 16 B in place, so those hooks each cost a malloc and
// a free as well, some three million of them in a 256-rank run. A larger hook is kept on
// the heap.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "core/engine/block_pool.h"

namespace moe {

class LandHooks {
 public:
  LandHooks() = default;
  LandHooks(LandHooks&& other) noexcept : head_(std::exchange(other.head_, nullptr)) {}
  LandHooks& operator=(LandHooks&& other) noexcept {
    if (this != &other) {
      clear();
      head_ = std::exchange(other.head_, nullptr);
    }
    return *this;
  }
  LandHooks(const LandHooks&) = delete;
  LandHooks& operator=(const LandHooks&) = delete;
  ~LandHooks() { clear(); }

  template <typename F>
  void push_back(F&& hook) {
    using Fn = std::decay_t<F>;
    Node* node = static_cast<Node*>(BlockPool::allocate(sizeof(Node)));
    try {
      if constexpr (kFitsInPlace<Fn>) {
        ::new (static_cast<void*>(node->storage)) Fn(std::forward<F>(hook));
        node->invoke = [](void* p) { (*static_cast<Fn*>(p))(); };
        node->destroy = [](void* p) noexcept { static_cast<Fn*>(p)->~Fn(); };
      } else {
        Fn* held = new Fn(std::forward<F>(hook));
        ::new (static_cast<void*>(node->storage)) Fn*(held);
        node->invoke = [](void* p) { (**static_cast<Fn**>(p))(); };
        node->destroy = [](void* p) noexcept { delete *static_cast<Fn**>(p); };
      }
    } catch (...) {
      BlockPool::release(node, sizeof(Node));
      throw;
    }
    node->next = nullptr;
    append(node);
  }

  // Runs the hooks in the order they were added.
  void run() {
    for (Node* n = head_; n; n = n->next) n->invoke(n->storage);
  }

 private:
  static constexpr std::size_t kInPlaceBytes = 40;  // a node is then 64 B, one pool block
  template <typename Fn>
  static constexpr bool kFitsInPlace = sizeof(Fn) <= kInPlaceBytes &&
                                       alignof(Fn) <= 8 && std::is_nothrow_move_constructible_v<Fn>;
  struct Node {
    Node* next;
    void (*invoke)(void*);
    void (*destroy)(void*) noexcept;
    alignas(8) unsigned char storage[kInPlaceBytes];
  };

  void append(Node* node) {
    Node** at = &head_;
    while (*at) at = &(*at)->next;  // lists hold one or two hooks
    *at = node;
  }
  void clear() noexcept {
    while (head_) {
      Node* n = std::exchange(head_, head_->next);
      n->destroy(n->storage);
      BlockPool::release(n, sizeof(Node));
    }
  }

  Node* head_ = nullptr;
};

}  // namespace moe
