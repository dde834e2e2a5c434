#pragma once
// Workspace stages: a fixed set of slots in one card's GM that a producer fills and one or
// more consumers read, each slot guarded by a flag word (the STAGES slots of the fused
// AlltoAll-Matmul-ReduceScatter kernel, DESIGN.md §3.6). Unlike a ring there is no head/tail:
// a slot is claimed, filled, published by its flag, read, and released when every reader
// named at claim time has finished.
//
// The kernel reports the steps it takes (claim, read begin/end); "full" is read from the
// slot's flag word, so the observed state is what a consumer polling that flag would see.
// The object checks the protocol as the run goes (recorded as violations, which fail
// verification): a producer never claims a slot whose readers have not all finished, a
// consumer never reads a slot before its flag says full, and reads match claims.
//
// Observation (DESIGN.md §4): every claim and release is logged with the slot count in use, as
// the workspace-stage counters of the trace; the snapshot reads the slots directly.

#include <cstdint>
#include <string>
#include <vector>

#include "core/machine/machine.h"

namespace moe {

enum class SlotState : std::uint8_t {
  Free,     // nothing in it (or its last occupant was read by every reader)
  Filling,  // claimed by the producer; data on its way, flag not set yet
  Full,     // flag set; no reader active right now
  Reading,  // at least one reader is reading it
  Count
};
std::string_view slotStateName(SlotState s);

struct WorkspaceStagesStats {
  std::int64_t fills = 0;  // claims so far
  std::int64_t reads = 0;  // finished reads so far
  int peakOccupied = 0;    // most slots not Free at once
};

class WorkspaceStages {
 public:
  // `group` names the kind of strip ("a2a input", "partial sums", ...) so views and the
  // trace can sum strips of one kind per card; `name` is unique and readable.
  WorkspaceStages(Machine& m, int id, std::string name, std::string group, int card, int slotCount,
                  std::int64_t slotBytes);

  int id() const { return id_; }
  const std::string& name() const { return name_; }
  const std::string& group() const { return group_; }
  int card() const { return card_; }
  int slotCount() const { return static_cast<int>(slots_.size()); }
  std::int64_t slotBytes() const { return slotBytes_; }

  // Producer: `item` (a unit or tile number) takes `slot`; `readers` consumers will read it;
  // it counts as full once `flag` holds at least `flagValue`.
  void claim(int slot, std::int64_t item, int readers, const Word* flag, std::int64_t flagValue);
  // Consumer: starts and finishes reading `slot`'s current occupant.
  void beginRead(int slot);
  void endRead(int slot);

  SlotState state(int slot) const;
  std::int64_t item(int slot) const {
    return slots_[static_cast<std::size_t>(slot)].item;
  }  // -1 if never used
  int readersLeft(int slot) const { return slots_[static_cast<std::size_t>(slot)].readersLeft; }
  std::int64_t uses(int slot) const { return slots_[static_cast<std::size_t>(slot)].uses; }
  int occupied() const { return occupied_; }
  const WorkspaceStagesStats& stats() const { return stats_; }
  const std::vector<std::string>& violations() const { return violations_; }

 private:
  struct Slot {
    std::int64_t item = -1;
    std::int64_t uses = 0;
    int readersLeft = 0;  // readers that have not finished the current occupant
    int active = 0;       // readers reading right now
    bool claimed = false;
    const Word* flag = nullptr;
    std::int64_t flagValue = 0;
  };
  Slot& at(int slot, const char* what);
  void violation(const std::string& what);
  void sample();

  Machine& m_;
  int id_;
  std::string name_, group_;
  int card_;
  std::int64_t slotBytes_;
  std::vector<Slot> slots_;
  int occupied_ = 0;
  WorkspaceStagesStats stats_;
  std::vector<std::string> violations_;
};

}  // namespace moe
