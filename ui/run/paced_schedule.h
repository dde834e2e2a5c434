#pragma once
// How long paced playback shows each stage of a run, computed by playing it on the pacing
// rule in fixed wall slices without a window or a clock: the figure behind "the default
// layer plays in N seconds", and what the tests pin. Qt-free.

#include <cstdint>
#include <string>
#include <vector>

#include "core/runtime/steppable_run.h"

namespace moe::ui {

struct StageOnScreen {
  std::string stage;        // as the toolbar shows it
  std::int64_t wallNs = 0;  // wall time frames showed this stage
  int frames = 0;           // slices that ended in it
};

struct PacedSchedule {
  std::vector<StageOnScreen> stages;  // in the order they first appear
  std::int64_t totalWallNs = 0;
  Time end = 0;
  bool finished = false;
  std::int64_t wallOf(const std::string& stage) const;
  int framesOf(const std::string& stage) const;
};

// Plays a fresh `run` to its end at `psPerWallSecond`, `sliceNs` of wall time per slice
// (a frame), and adds each slice's wall time to the stage its frame shows. Stops after
// `maxSlices` (finished stays false).
PacedSchedule pacedSchedule(SteppableRun& run, double psPerWallSecond, std::int64_t sliceNs,
                            std::int64_t maxSlices = 10'000'000);

}  // namespace moe::ui
