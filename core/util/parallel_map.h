#pragma once
// Runs independent jobs (sweep points, tuner candidates) on a few worker threads and hands
// the results back in index order, so what a caller prints or writes never depends on the
// thread count or on which job finished first.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace moe {

struct ParallelMapOptions {
  unsigned threads = 0;  // 0: std::thread::hardware_concurrency()
  // Called after each finished job with the number finished so far, one call at a time
  // (under a lock), from whichever worker finished it.
  std::function<void(std::size_t done, std::size_t total)> onDone;
  // When set, jobs not yet started are skipped (their result stays empty).
  const std::atomic<bool>* cancel = nullptr;
};

inline unsigned resolveThreadCount(unsigned requested, std::size_t jobs) {
  unsigned threads = requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(jobs, 1)));
}

// job(i) -> Result for every i in [0, count). An exception from a job is rethrown here after
// every worker has stopped (the lowest index wins, so that too is deterministic); jobs that
// should report failure per item return it inside Result instead.
template <class Result, class Job>
std::vector<std::optional<Result>> parallelMap(std::size_t count, Job job,
                                               const ParallelMapOptions& options = {}) {
  std::vector<std::optional<Result>> results(count);
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  std::mutex doneMutex;
  std::size_t done = 0;

  auto worker = [&] {
    for (;;) {
      if (options.cancel && options.cancel->load()) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= count) return;
      try {
        results[i].emplace(job(i));
      } catch (...) {
        errors[i] = std::current_exception();
      }
      std::lock_guard lock(doneMutex);
      ++done;
      if (options.onDone) options.onDone(done, count);
    }
  };

  const unsigned threads = resolveThreadCount(options.threads, count);
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::jthread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  }
  for (auto& error : errors)
    if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace moe
