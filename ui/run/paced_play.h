#pragma once
// One slice of paced playback, shared by the live run (RunController) and the schedule
// computed without a window (paced_schedule.h), so both follow the same rule. Qt-free.

#include <algorithm>
#include <cstdint>

#include "core/runtime/steppable_run.h"
#include "ui/run/pacing.h"
#include "ui/run/play_clock.h"

namespace moe::ui {

// Whether every event of the emulation's current instant has run: only then is its state
// the state shown until the next event.
inline bool instantComplete(const Simulator& sim) {
  return sim.pendingEvents() == 0 || sim.nextEventTime() > sim.now();
}

// Plays `run` for `wallNs` of wall time on `clock` at the chosen speed `psPerWallSecond`:
// runs every event up to where the clock's pace takes it. Where the activity changes (data
// starts or stops moving) at a completed instant, the clock changes pace there and spends the
// rest of the wall time at the new pace. `afterEvent()` runs after each event; `outOfTime()`,
// asked every 64 events, ends the slice early, and the clock then shows where the emulation got.
template <typename AfterEvent, typename OutOfTime>
void playPaced(SteppableRun& run, PlayClock& clock, double psPerWallSecond, std::int64_t wallNs,
               AfterEvent afterEvent, OutOfTime outOfTime) {
  Simulator& sim = run.emulation().sim();
  int n = 0;
  for (;;) {
    const Time aimed = clock.aim(psPerWallSecond, wallNs);
    bool changed = false;
    while (sim.pendingEvents() > 0 && sim.nextEventTime() <= aimed) {
      run.step();
      afterEvent();
      if (instantComplete(sim) && dataMoving(run.emulation()) != clock.dataMoving()) {
        changed = true;
        break;
      }
      if ((++n & 63) == 0 && outOfTime()) break;
    }
    if (!changed) return clock.settle(sim, aimed, wallNs);
    const std::int64_t used = std::min(wallNs, clock.wallTo(psPerWallSecond, sim.now()));
    clock.changePace(sim.now(), used, !clock.dataMoving());
    wallNs -= used;
    if (wallNs <= 0) return;
  }
}

}  // namespace moe::ui
