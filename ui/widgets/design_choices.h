#pragma once
// The toolbar's Design box: the designs of one workload from the registry, the one the
// product is about first, each with its description in the tooltip.

#include "core/scenario/scenario.h"

class QComboBox;

namespace moe::ui {

// Replaces the box's items (without emitting a change) with the designs of `kind`; each
// item's data is the Design as an int.
void fillDesignChoices(QComboBox* box, WorkloadKind kind);

}  // namespace moe::ui
