#include "app/moe_sim/operator_limits_text.h"

#include <ostream>

#include "core/plan/real_operator_limits.h"

namespace moesim {

bool reportOperatorLimits(std::ostream& err, const moe::Scenario& sc, bool strict) {
  const auto warnings = moe::realOperatorWarnings(sc);
  // The same "PATH: RULE" shape as every input error, so --strict reads like one.
  for (const auto& w : warnings)
    err << (strict ? "error: " : "warning: ") << w.field << ": " << w.message << "\n";
  return strict && !warnings.empty();
}

}  // namespace moesim
