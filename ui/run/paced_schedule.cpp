#include "ui/run/paced_schedule.h"

#include <algorithm>

#include "ui/run/paced_play.h"

namespace moe::ui {

std::int64_t PacedSchedule::wallOf(const std::string& stage) const {
  for (const StageOnScreen& s : stages)
    if (s.stage == stage) return s.wallNs;
  return 0;
}

int PacedSchedule::framesOf(const std::string& stage) const {
  for (const StageOnScreen& s : stages)
    if (s.stage == stage) return s.frames;
  return 0;
}

PacedSchedule pacedSchedule(SteppableRun& run, double psPerWallSecond, std::int64_t sliceNs,
                            std::int64_t maxSlices) {
  PacedSchedule out;
  PlayClock clock;
  clock.setPace(dataMoving(run.emulation()));
  const Simulator& sim = run.emulation().sim();
  for (std::int64_t i = 0; i < maxSlices && sim.pendingEvents() > 0; ++i) {
    playPaced(
        run, clock, psPerWallSecond, sliceNs, [] {}, [] { return false; });
    const std::string& stage = run.currentStage();
    auto it = std::find_if(out.stages.begin(), out.stages.end(),
                           [&](const StageOnScreen& s) { return s.stage == stage; });
    if (it == out.stages.end()) it = out.stages.insert(out.stages.end(), StageOnScreen{stage});
    it->wallNs += sliceNs;
    it->frames += 1;
    out.totalWallNs += sliceNs;
  }
  out.end = clock.time();
  out.finished = run.finished();
  return out;
}

}  // namespace moe::ui
