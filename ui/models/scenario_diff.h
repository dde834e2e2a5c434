#pragma once
// The fields where two scenarios differ, by their JSON path ("rings.combine.chunk_bytes"),
// with each side's value as the scenario file writes it. Tune's dialog lists all of them; the
// A/B view's stale note names the first few.

#include <QString>
#include <string>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe::ui {

struct FieldChange {
  std::string path;
  std::string from, to;  // the JSON value (strings without quotes), "(none)" when absent
};

// Every differing field, ordered by path. Rings written flat on one side and per stage on
// the other are compared per stage, so a flat → per-stage rewrite is not itself a change.
std::vector<FieldChange> scenarioChanges(const Scenario& from, const Scenario& to);

// "rings.chunk_bytes 65536 → 32768, …": the first `shown` changes on one line, each value
// cut to 16 characters, "…" when more differ.
QString scenarioDiffSummary(const Scenario& from, const Scenario& to, int shown = 3);

}  // namespace moe::ui
