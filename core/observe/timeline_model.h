#pragma once
// What the timeline shows, without any drawing: every core's closed activity bars, the roles
// each core ran programs in, the lanes (one per core, or one per role on each card, with
// communication/compute summary lanes when the run has both), and the busy/overlap figures.
// The workbench's TimelineWidget turns this into pixels; tests check it without Qt.

#include <cstdint>
#include <vector>

#include "core/engine/time.h"
#include "core/observe/interval_union.h"
#include "core/observe/snapshot.h"
#include "core/record/observer.h"
#include "core/record/states.h"

namespace moe {

struct TimelineBar {
  Time start, end;
  Activity activity;
  Role role;
};

enum class TimelineGrouping { PerCore, ByRole };
enum class TimelineSummary { Compute, Communication, Overlap };

struct TimelineLane {
  enum class Kind { Core, Role, Summary } kind = Kind::Core;
  int card = -1;  // Core and Role lanes
  int core = -1;  // Core lanes
  Role role = Role::Idle;
  TimelineSummary summary = TimelineSummary::Compute;
  std::vector<int> cores;  // Role lanes: the cores that ran a program in this role on this card
};

// a2a and reduce-scatter move data; the summary lanes set them against gemm.
constexpr bool isCommunication(Role r) {
  return r == Role::A2A || r == Role::ReduceScatter;
}

class TimelineModel {
 public:
  void clear();
  // New activity records (closed intervals), in any order across cores, time order per core.
  void append(const std::vector<ActivityInterval>& intervals);
  // Cores in a role whose first interval has not closed yet count in that role too.
  void noteRoles(const Snapshot& s);
  // True when lanes() would differ from the last call (new cores, roles or summaries).
  bool lanesChanged() const { return lanesChanged_; }
  // Cores with any bar, grouped by card (from the snapshot) in id order, as lanes.
  std::vector<TimelineLane> lanes(TimelineGrouping g, const Snapshot& s);

  const std::vector<TimelineBar>& bars(int core) const;
  std::uint32_t roleMask(int core) const;
  std::size_t intervalCount() const { return count_; }
  // The run has communication roles at work (the summary lanes are shown).
  bool hasCommunication() const { return hasComm_; }
  bool hasOverlapSummary() const { return hasComm_ && compute_.size() > 0; }
  // Time any communication (compute) core was working: closed activity only, or with the
  // snapshot's open activities extended to its time.
  const IntervalUnion& communication() const { return comm_; }
  const IntervalUnion& compute() const { return compute_; }
  IntervalUnion communicationAt(const Snapshot& s) const;
  IntervalUnion computeAt(const Snapshot& s) const;
  Time communicationTime() const { return comm_.measure(); }
  Time hiddenCommunicationTime() const { return comm_.overlap(compute_); }

 private:
  void noteRole(int core, Role r);
  void ensureCore(int core);

  std::vector<std::vector<TimelineBar>> bars_;  // per core id
  std::vector<std::uint32_t> roles_;            // per core id: bit mask of its roles
  IntervalUnion comm_, compute_;
  bool hasComm_ = false;
  bool lanesChanged_ = true;
  std::size_t count_ = 0;
};

}  // namespace moe
