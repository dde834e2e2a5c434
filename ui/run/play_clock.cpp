#include "ui/run/play_clock.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/engine/simulator.h"

namespace moe::ui {

Time PlayClock::aim(double psPerWallSecond, std::int64_t wallNs) const {
  const double step = std::max(0.0, psPerWallSecond) * static_cast<double>(wallNs) / 1e9;
  // A long pause at a high speed must not overflow: clamp far beyond any run's end.
  const double room = static_cast<double>(std::numeric_limits<Time>::max() / 2 - t_);
  return t_ + static_cast<Time>(std::llround(std::min(step, room)));
}

void PlayClock::settle(const Simulator& sim, Time aimed) {
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
