#pragma once
// What the user selected in any view, and the plain-words explanation the inspector shows
// for it (DESIGN.md §5 "teaching"). Pure functions of a Snapshot, so they are unit-testable.

#include <QString>

#include "core/observe/snapshot.h"

namespace moe::ui {

struct Selection {
  enum class Kind { None, Card, Core, Ring, Link, Stages };
  Kind kind = Kind::None;
  int id = -1;  // card id, core id, ring id, index into Snapshot::links, or workspace strip id
  bool operator==(const Selection&) const = default;
};

// One sentence headline plus detail lines, as HTML for the inspector.
QString describeSelection(const Snapshot& s, const Selection& sel);
// Short one-paragraph text for tooltips.
QString coreTooltip(const Snapshot& s, const CoreSnap& c);
QString ringTooltip(const RingSnap& r);
// A link and its opposite direction (the other way of an HCCS pair, a NIC's rx beside its
// tx): the views draw a pair as one chord coloured by the busier way, so both are named.
QString linkTooltip(const Snapshot& s, const LinkSnap& l);
// The other direction of `l` in the snapshot, or null if it has none.
const LinkSnap* oppositeLink(const Snapshot& s, const LinkSnap& l);
QString stagesTooltip(const StagesSnap& w);
QString slotTooltip(const StagesSnap& w, int slot);
// What a core in this role does, in one sentence, for the inspector.
QString roleDescription(Role r);
QString linkName(const LinkSnap& l);

}  // namespace moe::ui
