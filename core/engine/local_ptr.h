#pragma once
// A reference-counted owner for records that are made, shared and dropped on one thread
// only: an emulation runs on one thread, and its operation records never leave it.
// std::shared_ptr counts with locked (atomic) adds as soon as the process has a second
// thread, and an op's count moves on every issue, pipe hand-over and landing: those adds
// were a third of AiCore::issue's time and half of releasePipe's. Here the count is a
// plain int in the record itself (T::localRefs), and the record comes from BlockPool.

#include <cstddef>
#include <new>
#include <utility>

#include "core/engine/block_pool.h"

namespace moe {

template <typename T>
class LocalPtr {
 public:
  LocalPtr() = default;
  LocalPtr(std::nullptr_t) noexcept {}  // NOLINT: converts like a null shared_ptr
  // A new T, value-initialised, with this the only owner.
  static LocalPtr make() {
    void* block = PoolAllocator<T>().allocate(1);
    T* p;
    try {
      p = ::new (block) T();
    } catch (...) {
      PoolAllocator<T>().deallocate(static_cast<T*>(block), 1);
      throw;
    }
    return LocalPtr(p);
  }

  LocalPtr(const LocalPtr& o) noexcept : p_(o.p_) {
    if (p_) ++p_->localRefs;
  }
  LocalPtr(LocalPtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  LocalPtr& operator=(const LocalPtr& o) noexcept {
    LocalPtr(o).swap(*this);
    return *this;
  }
  LocalPtr& operator=(LocalPtr&& o) noexcept {
    LocalPtr(std::move(o)).swap(*this);
    return *this;
  }
  ~LocalPtr() { drop(); }

  void reset() noexcept { LocalPtr().swap(*this); }
  void swap(LocalPtr& o) noexcept { std::swap(p_, o.p_); }
  T* get() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  T* operator->() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  // How many LocalPtrs own the record (0 for a null pointer).
  int useCount() const noexcept { return p_ ? p_->localRefs : 0; }

 private:
  explicit LocalPtr(T* p) noexcept : p_(p) { p_->localRefs = 1; }
  void drop() noexcept {
    if (p_ && --p_->localRefs == 0) {
      p_->~T();
      PoolAllocator<T>().deallocate(p_, 1);
    }
    p_ = nullptr;
  }
  T* p_ = nullptr;
};

}  // namespace moe
