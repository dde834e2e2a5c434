#pragma once
// The progress bar of `moe-sim sweep` on stderr: points done of the total, and the time
// left at the rate so far. Only when stderr is a terminal (ProgressLine::wanted), so a
// pipe, a file or CI sees nothing and captured output stays byte-identical.

#include <chrono>
#include <cstddef>

namespace moe {

class SweepProgress {
 public:
  // `total`: the points this run will do (resumed points excluded).
  explicit SweepProgress(std::size_t total);
  // Redraws, at most every 200 ms and always on the last point. Not thread-safe: callers
  // serialise (parallelMap's onDone, rank 0's receive loop).
  void update(std::size_t done);
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t total_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point lastDraw_{};
};

}  // namespace moe
