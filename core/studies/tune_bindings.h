#pragma once
// Why each knob of the tuner's answer stops where it does: its next value up and down,
// each refused by a rule or measured against the answer.

#include <functional>
#include <vector>

#include "core/studies/streaming_tuner.h"
#include "core/studies/tune_knobs.h"

namespace moe {

struct TuneBindingInputs {
  const Scenario& full;  // the scenario at full shape (payload none)
  TuneObjective objective;
  const TuneResult& out;  // the search so far: its best, confirmed and evaluated runs
  const std::vector<const TuneKnob*>& searched;
  // The run of these knobs at the search's shape, or null when it was not run.
  std::function<const TuneEval*(const TuneKnobs&)> measured;
};

TuneBinding tuneBinding(const TuneKnob& kn, const TuneBindingInputs& in);

}  // namespace moe
