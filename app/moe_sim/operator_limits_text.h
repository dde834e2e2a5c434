#pragma once
// How `moe-sim run` and `moe-sim validate` report the real CANN operators' limits a scenario
// exceeds: warnings on stderr ("warning: FIELD: ..."), or with --strict errors and exit 2.

#include <iosfwd>

#include "core/scenario/scenario.h"

namespace moesim {

// Prints one line per exceeded limit on err. Returns true when the command must stop with
// exit 2: strict is set and at least one limit is exceeded.
bool reportOperatorLimits(std::ostream& err, const moe::Scenario& sc, bool strict);

}  // namespace moesim
