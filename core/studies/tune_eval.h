#pragma once
// One engine run of a tuning candidate (payload none): its stage times, read from the run's
// RunResult, for the streaming tuner's search (streaming_tuner.cpp).

#include <memory>
#include <vector>

#include "core/reference/gating.h"
#include "core/run/design.h"
#include "core/studies/streaming_tuner.h"

namespace moe {

// Runs one design of `sc` with knobs `k` on the given gating and reads its figures; a
// deadlock or an error is a TuneEval that is not ok, with the reason.
TuneEval evaluateTuneRun(const Scenario& sc, const TuneKnobs& k, TuneObjective objective,
                         Design design,
                         const std::shared_ptr<const std::vector<RankGating>>& gating);
// The design's name in the run log.
const char* tuneLogDesign(Design d);

}  // namespace moe
