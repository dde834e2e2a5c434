#pragma once
// The emulated time playback shows. Playing moves it by wall time, independently of where
// the next event lies: every event at or before it runs, and across a gap with no events it
// keeps moving, so a long wait (the experts stage's GEMMs) is crossed at any speed instead
// of stalling the way aiming at `now() + speed * dt` did. Its pace follows the activity
// (ui/run/pacing.h): the chosen speed while data moves between cards, a fast-forward that
// doubles every wall second while it does not. Qt-free, so its rules are testable without a
// window.

#include <cstdint>

#include "core/engine/time.h"

namespace moe {
class Simulator;
}

namespace moe::ui {

class PlayClock {
 public:
  Time time() const { return t_; }
  void reset();
  // Whether the clock plays at the chosen speed (data moving) or fast-forwards.
  bool dataMoving() const { return moving_; }
  // Wall time into the current quiet stretch (0 while data moves).
  std::int64_t quietWallNs() const { return quietNs_; }
  // A new pace from now: `moving` says whether data moves at the shown time. Entering a
  // quiet stretch starts its fast-forward from the chosen speed.
  void setPace(bool moving);
  // The time playing should reach after `wallNs` more wall time at the current pace and
  // `psPerWallSecond`, the chosen speed.
  Time aim(double psPerWallSecond, std::int64_t wallNs) const;
  // Wall nanoseconds the current pace needs to move the clock from time() to `t`.
  std::int64_t wallTo(double psPerWallSecond, Time t) const;
  // The activity changed at `t` (time() <= t <= aimed): the clock moves there, spending
  // `wallNs` of the slice (wallTo(t)), and plays on at the pace of `moving`.
  void changePace(Time t, std::int64_t wallNs, bool moving);
  // After running the events up to `aimed` (or fewer, if the slice budget ran out), which
  // took `wallNs`: the clock moves to `aimed` when every event up to it ran, else only as
  // far as the emulation got, so the views never show a time whose state was not reached.
  // At the end it stops at the last event's time.
  void settle(const Simulator& sim, Time aimed, std::int64_t wallNs = 0);
  // After a step that did not use the clock (one event, a stage): keep up with the emulation.
  void follow(const Simulator& sim);
  // After a re-run to `t` (step back): the clock shows `t`, or the end if the run ends before.
  void jumpTo(const Simulator& sim, Time t);

 private:
  Time t_ = 0;
  bool moving_ = false;
  std::int64_t quietNs_ = 0;
};

}  // namespace moe::ui
