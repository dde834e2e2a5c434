#pragma once
// Why sweep points have no figures: one line per point whose rows are not "ok" (invalid
// scenario, deadlock, error), naming the point's axis values and the row's message (for an
// invalid point the validation's field path and rule). Points a cancel skipped are not
// problems. The Sweep view lists every one, not only the first.

#include <QString>
#include <vector>

#include "ui/run/sweep_runner.h"

namespace moe::ui {

struct SweepProblem {
  std::size_t point;
  QString text;  // "point 3 (rings.sender_cores = 64): invalid: rings: sender_cores …"
};

std::vector<SweepProblem> sweepProblems(const SweepResult& result);

// "invalid: rings: sender_cores …" for one row, "" when it is ok.
QString rowProblem(const SweepRow& row);

// "rings.queue_chunks = 2, rings.sender_cores = 64": point `index`'s axis values.
QString pointValuesText(const SweepSpec& spec, std::size_t index);

}  // namespace moe::ui
