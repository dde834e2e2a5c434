#include "core/protocol/workspace_stages.h"

#include <algorithm>
#include <array>

namespace moe {

std::string_view slotStateName(SlotState s) {
  static constexpr std::array<std::string_view, static_cast<int>(SlotState::Count)> names = {
      "free", "filling", "full", "reading"};
  return names[static_cast<int>(s)];
}

WorkspaceStages::WorkspaceStages(Machine& m, int id, std::string name, std::string group, int card,
                                 int slotCount, std::int64_t slotBytes)
    : m_(m),
      id_(id),
      name_(std::move(name)),
      group_(std::move(group)),
      card_(card),
      slotBytes_(slotBytes),
      slots_(static_cast<std::size_t>(std::max(0, slotCount))) {}

void WorkspaceStages::violation(const std::string& what) {
  violations_.push_back(name_ + ": " + what + " (at " + std::to_string(m_.sim().now()) + " ps)");
}

void WorkspaceStages::sample() {
  m_.observer().workspaceSlots(id_, m_.sim().now(), occupied_);
}

WorkspaceStages::Slot& WorkspaceStages::at(int slot, const char* what) {
  if (slot < 0 || slot >= slotCount())
    throw std::logic_error(name_ + ": " + what + " of slot " + std::to_string(slot) +
                           " outside [0, " + std::to_string(slotCount()) + ")");
  return slots_[static_cast<std::size_t>(slot)];
}

void WorkspaceStages::claim(int slot, std::int64_t item, int readers, const Word* flag,
                            std::int64_t flagValue) {
  Slot& s = at(slot, "claim");
  if (s.claimed)
    violation("slot " + std::to_string(slot) + " claimed for item " + std::to_string(item) +
              " while item " + std::to_string(s.item) + " still has " +
              std::to_string(s.readersLeft) + " unfinished readers");
  else
    ++occupied_;
  s = Slot{item, s.uses + 1, readers, 0, true, flag, flagValue};
  ++stats_.fills;
  stats_.peakOccupied = std::max(stats_.peakOccupied, occupied_);
  sample();
}

void WorkspaceStages::beginRead(int slot) {
  Slot& s = at(slot, "read");
  if (!s.claimed || state(slot) == SlotState::Filling) {
    violation("slot " + std::to_string(slot) + " read before its flag said full (item " +
              std::to_string(s.item) + ")");
    return;
  }
  ++s.active;
}

void WorkspaceStages::endRead(int slot) {
  Slot& s = at(slot, "read end");
  if (s.active <= 0 || s.readersLeft <= 0) {
    violation("slot " + std::to_string(slot) + ": a read ended that never began (item " +
              std::to_string(s.item) + ")");
    return;
  }
  --s.active;
  ++stats_.reads;
  if (--s.readersLeft == 0) {
    s.claimed = false;
    --occupied_;
    sample();
  }
}

SlotState WorkspaceStages::state(int slot) const {
  const Slot& s = slots_[static_cast<std::size_t>(slot)];
  if (!s.claimed) return SlotState::Free;
  if (s.active > 0) return SlotState::Reading;
  if (s.flag && s.flag->value < s.flagValue) return SlotState::Filling;
  return SlotState::Full;
}

}  // namespace moe
