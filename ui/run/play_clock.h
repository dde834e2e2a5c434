#pragma once
// The emulated time playback shows. Playing moves it at `speed` emulated picoseconds per
// wall second, independently of where the next event lies: every event at or before it runs,
// and across a gap with no events it keeps moving, so a long wait (the experts stage's GEMMs)
// is crossed at any speed instead of stalling the way aiming at `now() + speed * dt` did.
// Qt-free, so its rules are testable without a window.

#include <cstdint>

#include "core/engine/time.h"

namespace moe {
class Simulator;
}

namespace moe::ui {

class PlayClock {
 public:
  Time time() const { return t_; }
  void reset() { t_ = 0; }
  // The time playing should reach after `wallNs` more wall time at `psPerWallSecond`.
  Time aim(double psPerWallSecond, std::int64_t wallNs) const;
  // After running the events up to `aimed` (or fewer, if the slice budget ran out): the clock
  // moves to `aimed` when every event up to it ran, else only as far as the emulation got, so
  // the views never show a time whose state was not reached. At the end it stops at the last
  // event's time.
  void settle(const Simulator& sim, Time aimed);
  // After a step that did not use the clock (one event, a stage): keep up with the emulation.
  void follow(const Simulator& sim);
  // After a re-run to `t` (step back): the clock shows `t`, or the end if the run ends before.
  void jumpTo(const Simulator& sim, Time t);

 private:
  Time t_ = 0;
};

}  // namespace moe::ui
