#include "core/runtime/steppable_run.h"

#include <algorithm>
#include <utility>

namespace moe {

RunResult SteppableRun::result() const {
  const Emulation& emu = emulation();
  const Machine& m = emu.machine();
  RunResult r;
  r.design = design();
  r.finished = finished();
  r.stages = stages();
  // The clock at the end: operations still landing after the last stage's cores finished
  // count too.
  r.end = emu.sim().now();
  for (const StageReport& st : r.stages) r.end = std::max(r.end, st.end);
  r.counters.events = emu.sim().eventsRun();
  r.counters.rdmaPosts = m.rdmaPosts;
  r.counters.bandwidthRecomputes = m.net().recomputes();
  r.counters.flowsRecomputed = m.net().flowsRecomputed();
  r.buffers = buffers();
  if (deadlocked()) {
    r.deadlocked = true;
    r.deadlockStage = currentStage();
    r.deadlockDiagnosis = emu.deadlockDiagnosis();
  }
  r.digest = digest();
  return r;
}

RunResult SteppableRun::result(std::vector<VerificationCheck> verification) const {
  RunResult r = result();
  r.verified = true;
  r.verification = std::move(verification);
  return r;
}

}  // namespace moe
