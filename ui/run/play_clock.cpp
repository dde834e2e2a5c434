#include "ui/run/play_clock.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/engine/simulator.h"
#include "ui/run/pacing.h"

namespace moe::ui {

void PlayClock::reset() {
  t_ = 0;
  moving_ = false;
  quietNs_ = 0;
}

void PlayClock::setPace(bool moving) {
  moving_ = moving;
  quietNs_ = 0;
}

Time PlayClock::aim(double psPerWallSecond, std::int64_t wallNs) const {
  const double speed = std::max(0.0, psPerWallSecond);
  const double ns = static_cast<double>(std::max<std::int64_t>(0, wallNs));
  const double step =
      moving_ ? speed * ns / 1e9 : quietDistancePs(speed, static_cast<double>(quietNs_), ns);
  // A long pause at a high speed must not overflow: clamp far beyond any run's end.
  const double room = static_cast<double>(std::numeric_limits<Time>::max() / 2 - t_);
  return t_ + static_cast<Time>(std::llround(std::min(step, room)));
}

std::int64_t PlayClock::wallTo(double psPerWallSecond, Time t) const {
  const double ps = static_cast<double>(std::max<Time>(0, t - t_));
  if (ps == 0) return 0;
  const double speed = std::max(0.0, psPerWallSecond);
  if (speed == 0) return std::numeric_limits<std::int64_t>::max() / 2;
  const double ns =
      moving_ ? ps * 1e9 / speed : ui::quietWallNs(speed, static_cast<double>(quietNs_), ps);
  // Rounded up: the clock never claims to reach t in less wall time than the pace allows.
  return static_cast<std::int64_t>(
      std::min(std::ceil(ns), static_cast<double>(std::numeric_limits<std::int64_t>::max() / 2)));
}

void PlayClock::changePace(Time t, std::int64_t wallNs, bool moving) {
  t_ = std::max(t_, t);
  if (!moving_) quietNs_ += std::max<std::int64_t>(0, wallNs);
  if (moving != moving_) setPace(moving);
}

void PlayClock::settle(const Simulator& sim, Time aimed, std::int64_t wallNs) {
  if (!moving_) quietNs_ += std::max<std::int64_t>(0, wallNs);
  if (sim.pendingEvents() > 0 && sim.nextEventTime() > aimed)
    t_ = std::max(t_, aimed);  // all events up to `aimed` ran: the gap after them is shown
  else
    follow(sim);  // behind (budget) or at the end: show where the emulation is
}

void PlayClock::follow(const Simulator& sim) {
  t_ = std::max(t_, sim.now());
}

void PlayClock::jumpTo(const Simulator& sim, Time t) {
  t_ = sim.pendingEvents() > 0 ? std::max(t, sim.now()) : sim.now();
}

}  // namespace moe::ui
