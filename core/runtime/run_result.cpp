#include "core/runtime/run_result.h"

#include <algorithm>
#include <cstdio>

namespace moe {

const StageReport* RunResult::stage(StageId id) const {
  for (const StageReport& st : stages)
    if (st.id == id) return &st;
  return nullptr;
}

Time RunResult::stageTime(StageId id) const {
  const StageReport* st = stage(id);
  return st ? st->duration() : 0;
}

bool RunResult::verificationPassed() const {
  return std::all_of(verification.begin(), verification.end(),
                     [](const VerificationCheck& c) { return c.ok; });
}

std::string RunResult::deadlockText() const {
  if (!deadlocked) return {};
  char at[64];
  std::snprintf(at, sizeof at, "%.3f", toMicroseconds(end));
  return "deadlock in " + design + " run during stage '" + deadlockStage + "' at " + at +
         " us: no event can fire while these cores wait:\n" + deadlockDiagnosis;
}

}  // namespace moe
