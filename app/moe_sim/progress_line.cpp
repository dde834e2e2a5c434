#include "app/moe_sim/progress_line.h"

#include <unistd.h>

#include <cstdio>

namespace moe {

bool ProgressLine::wanted() {
  return isatty(STDERR_FILENO) == 1;
}

void ProgressLine::update(const std::string& design, const std::string& stage, Time emulatedNow,
                          std::uint64_t events) {
  const Clock::time_point now = Clock::now();
  if (design != design_) {  // a new design: the rate counts from here; draw from the next call
    design_ = design;
    designStart_ = now;
    startEvents_ = events;
    return;
  }
  if (drawn_ && now - lastDraw_ < std::chrono::milliseconds(200)) return;
  lastDraw_ = now;
  drawn_ = true;
  const double wall = std::chrono::duration<double>(now - designStart_).count();
  const double rate = wall > 0 ? static_cast<double>(events - startEvents_) / wall : 0;
  std::fprintf(stderr, "\r\033[K%s  %-20s  emulated %12.3f us  %6.2f M events  %6.2f M events/s",
               design.c_str(), stage.c_str(), toMicroseconds(emulatedNow),
               static_cast<double>(events) / 1e6, rate / 1e6);
  std::fflush(stderr);
}

void ProgressLine::clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace moe
