#pragma once
// One emulation: the simulator, the machine, the observer and the protocol objects (rings,
// barriers) of a run. Operators create their rings and launch their core programs here;
// the UI and CLI observe everything through it without knowing which operator runs.

#include <deque>
#include <string>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/machine.h"
#include "core/protocol/indexed_labels.h"
#include "core/protocol/ring_buffer.h"
#include "core/protocol/workspace_stages.h"
#include "core/record/observer.h"
#include "core/scenario/scenario.h"

namespace moe {

class Emulation {
 public:
  explicit Emulation(const Scenario& scenario);
  Emulation(const Emulation&) = delete;
  Emulation& operator=(const Emulation&) = delete;

  const Scenario& scenario() const { return scenario_; }
  Simulator& sim() { return sim_; }
  const Simulator& sim() const { return sim_; }
  Observer& observer() { return obs_; }
  const Observer& observer() const { return obs_; }
  Machine& machine() { return machine_; }
  const Machine& machine() const { return machine_; }

  RingBuffer& addRing(Label name, RingKind kind, int consumerCard, int producerCard,
                      std::int64_t chunkBytes, int queueChunks);
  // The names of a family of rings, kept as long as the rings (see indexed_labels.h).
  const IndexedLabels& addRingNames(IndexedLabels::Format format) {
    return ringNames_.emplace_back(std::move(format));
  }
  // The rings in use (every ring made, unless some were retired).
  const std::deque<RingBuffer>& rings() const { return rings_; }
  // Frees the data bytes of every ring so far (their pointers and stats stay observable).
  void discardRingData();
  // Destroys every ring made so far, once their stage is over, keeping what a report reads
  // of them: how many there were, their largest occupancy, their violations and the first
  // broken delivery; their data areas' GM records go to the next buffers made. Only for a
  // run that keeps no observation or causal log (those name rings by index and words by
  // address): a 256-rank streaming layer's dispatch has 73,472 rings, which the combine
  // would otherwise carry through its peak.
  void retireRings();
  int ringCount() const { return retiredRings_ + static_cast<int>(rings_.size()); }
  std::int64_t retiredPeakOccupancy() const { return retiredPeakOccupancy_; }
  const std::string& retiredDeliveryError() const { return retiredDeliveryError_; }
  SyncBarrier& addBarrier(std::string name, int participants);
  // A strip of flag-guarded workspace slots on `card` (see workspace_stages.h); the
  // snapshot, the card view and the trace show every strip without operator-specific code.
  WorkspaceStages& addWorkspaceStages(std::string name, std::string group, int card, int slotCount,
                                      std::int64_t slotBytes);
  const std::deque<WorkspaceStages>& workspaceStages() const { return stages_; }

  // Runs `body` on `core` in `role`; counts `latch` down when it ends.
  void launch(AiCore& core, Role role, Task body, Latch* latch);

  // Every ring's and workspace strip's protocol violations, plus any the operators reported.
  std::vector<std::string> violations() const;
  void reportViolation(std::string v) { extraViolations_.push_back(std::move(v)); }

  // When nothing can fire but programs still wait: one line per waiting core, naming its
  // role, what it waits on and the pointer values (as DeepEP's timeout messages do).
  std::string deadlockDiagnosis() const;

 private:
  Scenario scenario_;
  Simulator sim_;
  Observer obs_;
  Machine machine_;
  std::deque<IndexedLabels> ringNames_;  // before rings_, which read them
  std::deque<RingBuffer> rings_;
  std::deque<SyncBarrier> barriers_;
  std::deque<WorkspaceStages> stages_;
  std::vector<std::string> extraViolations_;

  int retiredRings_ = 0;
  std::int64_t retiredPeakOccupancy_ = 0;
  std::vector<std::string> retiredViolations_;
  std::string retiredDeliveryError_;
};

}  // namespace moe
