#include "core/runtime/emulation.h"

#include <algorithm>

namespace moe {

namespace {
Task runProgram(AiCore& core, Task body, Latch* latch) {
  co_await body;
  // A kernel ends when everything it issued has retired, as on the hardware. Programs
  // usually fence their last writes themselves; one that had nothing to do (a receiver
  // that got no rows) may end right after issuing its table copies.
  for (Pipe p : {Pipe::Mte2, Pipe::Mte3, Pipe::Vector, Pipe::Scalar, Pipe::Cube})
    if (!core.pipeIdle(p)) co_await core.fence(p);
  // Its UB (or L1) is free once it has ended, as on the hardware. Kept until the core's
  // next launch, the buffers of every layout and experts core stayed through the whole
  // combine (tens of MB at 256 ranks).
  core.resetUb();
  core.finishProgram();
  if (latch) latch->countDown();
}
}  // namespace

Emulation::Emulation(const Scenario& scenario)
    : scenario_(scenario),
      obs_(static_cast<std::size_t>(scenario.eventLogCapacity)),
      machine_(sim_, scenario.hardware, scenario.cluster, scenario.payload, obs_) {
  machine_.net().setMinRecomputeInterval(nanoseconds(scenario.bandwidthUpdateNs));
}

RingBuffer& Emulation::addRing(Label name, RingKind kind, int consumerCard, int producerCard,
                               std::int64_t chunkBytes, int queueChunks) {
  const int id = ringCount();  // ids go on counting past retired rings
  return rings_.emplace_back(machine_, id, std::move(name), kind, consumerCard, producerCard,
                             chunkBytes, queueChunks, true);
}

void Emulation::discardRingData() {
  for (RingBuffer& r : rings_) machine_.discard(r.dataBuffer());
  machine_.releaseIdleRingPages();
}

void Emulation::retireRings() {
  for (RingBuffer& r : rings_) {
    retiredPeakOccupancy_ = std::max(retiredPeakOccupancy_, r.stats().peakOccupancy);
    retiredViolations_.insert(retiredViolations_.end(), r.violations().begin(),
                              r.violations().end());
    if (retiredDeliveryError_.empty()) retiredDeliveryError_ = r.deliveryError();
    machine_.recycle(r.dataBuffer());  // nothing else points at a ring's data area
  }
  retiredRings_ += static_cast<int>(rings_.size());
  std::deque<RingBuffer>().swap(rings_);  // clear() would keep a block and the map
}

SyncBarrier& Emulation::addBarrier(std::string name, int participants) {
  return barriers_.emplace_back(std::move(name), participants);
}

void Emulation::launch(AiCore& core, Role role, Task body, Latch* latch) {
  core.resetUb();
  core.setRole(role);
  if (CausalLog* log = machine_.causalLog()) log->programStarted(core.id(), role, sim_.now());
  sim_.spawn(runProgram(core, std::move(body), latch), core.name());
}

WorkspaceStages& Emulation::addWorkspaceStages(std::string name, std::string group, int card,
                                               int slotCount, std::int64_t slotBytes) {
  const int id = static_cast<int>(stages_.size());
  return stages_.emplace_back(machine_, id, std::move(name), std::move(group), card, slotCount,
                              slotBytes);
}

std::vector<std::string> Emulation::violations() const {
  std::vector<std::string> out = extraViolations_;
  out.insert(out.end(), retiredViolations_.begin(), retiredViolations_.end());
  for (const auto& r : rings_) out.insert(out.end(), r.violations().begin(), r.violations().end());
  for (const auto& w : stages_) out.insert(out.end(), w.violations().begin(), w.violations().end());
  return out;
}

std::string Emulation::deadlockDiagnosis() const {
  std::string text;
  // The early watch names exactly the cores it proved stuck, and whose word they wait on.
  for (const AiCore* c : machine_.stuckCores()) {
    text += "  " + c->name() + " (" + std::string(roleName(c->role())) + ", " +
            std::string(activityName(c->activity())) + " since " +
            std::to_string(c->activitySince()) + " ps): " + c->waitDescription() +
            "; the only core that writes what it waits on has finished\n";
  }
  if (!text.empty()) return text;
  for (int i = 0; i < machine_.coreCount(); ++i) {
    const AiCore& c = machine_.core(i);
    const Activity a = c.activity();
    if (a != Activity::WaitSpace && a != Activity::WaitData && a != Activity::WaitSync) continue;
    text += "  " + c.name() + " (" + std::string(roleName(c.role())) + ", " +
            std::string(activityName(a)) + " since " + std::to_string(c.activitySince()) +
            " ps): " + c.waitDescription() + "\n";
  }
  if (text.empty()) text = "  (no core is waiting on a ring, flag or barrier)\n";
  return text;
}

}  // namespace moe
