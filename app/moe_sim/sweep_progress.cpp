#include "app/moe_sim/sweep_progress.h"

#include <cstdio>
#include <string>

#include "app/moe_sim/progress_line.h"

namespace moe {

SweepProgress::SweepProgress(std::size_t total) : total_(total), enabled_(ProgressLine::wanted()) {}

void SweepProgress::update(std::size_t done) {
  if (!enabled_ || total_ == 0) return;
  const Clock::time_point now = Clock::now();
  if (drawn_ && done < total_ && now - lastDraw_ < std::chrono::milliseconds(200)) return;
  lastDraw_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * done / total_);
  const std::string bar = std::string(static_cast<std::size_t>(filled), '#') +
                          std::string(static_cast<std::size_t>(kWidth - filled), '.');
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double left =
      done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total_ - done) : 0.0;
  const long secs = static_cast<long>(left + 0.5);
  char eta[32];
  if (done == 0)
    std::snprintf(eta, sizeof eta, "ETA --:--");
  else
    std::snprintf(eta, sizeof eta, "ETA %ld:%02ld:%02ld", secs / 3600, secs / 60 % 60, secs % 60);
  std::fprintf(stderr, "\r\033[Ksweep [%s] %zu/%zu points  %s", bar.c_str(), done, total_, eta);
  std::fflush(stderr);
}

void SweepProgress::clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace moe
