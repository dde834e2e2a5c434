#pragma once
// Groups a card's rings by what they carry, so a card with many rings (80 in the default
// streaming dispatch: one per peer, token channel and forwarder) reads as a few kinds.
// Rings of one kind differ only in their numbers (peer card, channel, lane), so the group
// is the ring's name with the consuming card dropped and every number replaced by "*":
// "card3 IPC <- card9 fwd from server1 ch2" is in "IPC <- card* fwd from server* ch*".

#include <string>
#include <vector>

#include "core/observe/snapshot.h"

namespace moe::ui {

struct RingGroup {
  std::string title;       // the name pattern, e.g. "RDMA <- card* ch*"
  std::vector<int> rings;  // indices into Snapshot::rings, in snapshot order
};

// The name pattern of one ring (see above).
std::string ringGroupTitle(const std::string& ringName);

// The rings `card` consumes, grouped by pattern; groups in order of their first ring.
std::vector<RingGroup> ringGroups(const Snapshot& snap, int card);

}  // namespace moe::ui
