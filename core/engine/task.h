#pragma once
// Task: the coroutine type of every emulated core program and of the helper steps it calls
// (`co_await waitSpace(...)`). Lazily started; awaiting a Task runs it and resumes the
// caller when it finishes (symmetric transfer, so deep call chains do not grow the stack).

#include <coroutine>
#include <cstddef>
#include <exception>
#include <utility>

#include "core/engine/block_pool.h"

namespace moe {

class [[nodiscard]] Task {
 public:
  struct promise_type {
    std::coroutine_handle<> continuation;
    std::exception_ptr error;
    // Frames are recycled (block_pool.h): a kernel awaits millions of helper Tasks per run.
    static void* operator new(std::size_t bytes) { return BlockPool::allocate(bytes); }
    static void operator delete(void* frame, std::size_t bytes) noexcept {
      BlockPool::release(frame, bytes);
    }

    Task get_return_object() {
      return Task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    auto final_suspend() noexcept {
      struct FinalAwaiter {
        bool await_ready() noexcept { return false; }
        std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
          auto next = h.promise().continuation;
          return next ? next : std::noop_coroutine();
        }
        void await_resume() noexcept {}
      };
      return FinalAwaiter{};
    }
    void return_void() {}
    void unhandled_exception() { error = std::current_exception(); }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : handle_(h) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  bool done() const { return !handle_ || handle_.done(); }
  Handle handle() const { return handle_; }
  // Rethrows an exception that escaped the coroutine body (a kernel bug).
  void rethrowIfFailed() const {
    if (handle_ && handle_.promise().error) std::rethrow_exception(handle_.promise().error);
  }

  bool await_ready() const noexcept { return done(); }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept {
    handle_.promise().continuation = caller;
    return handle_;
  }
  void await_resume() const { rethrowIfFailed(); }

 private:
  Handle handle_;
};

}  // namespace moe
