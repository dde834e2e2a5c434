#pragma once
// The one-line progress report of a long `moe-sim run` on stderr: design, stage, emulated
// time and events per second, rewritten in place. Only when stderr is a terminal: a pipe,
// a file or CI sees nothing, so captured output stays byte-identical.

#include <chrono>
#include <cstdint>
#include <string>

#include "core/engine/time.h"

namespace moe {

class ProgressLine {
 public:
  // True when stderr is a terminal.
  static bool wanted();
  // Redraws the line, at most every 200 ms of wall time.
  void update(const std::string& design, const std::string& stage, Time emulatedNow,
              std::uint64_t events);
  // Clears the line (call before printing the report).
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  std::string design_;
  Clock::time_point designStart_{};
  Clock::time_point lastDraw_{};
  std::uint64_t startEvents_ = 0;
  bool drawn_ = false;
};

}  // namespace moe
