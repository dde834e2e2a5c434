#pragma once
// One point of a sweep: its axis values (row-major over the axes, the last axis fastest, so
// point numbers and row order are the same whatever runs them) and its scenario.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/scenario/scenario.h"
#include "core/studies/sweep_spec.h"

namespace moe {

// The value of every axis at point `index` (< spec.pointCount()).
std::vector<nlohmann::json> sweepPointValues(const SweepSpec& spec, std::size_t index);

// The base scenario's JSON with the axis values put in; a relative routing.trace_file value
// is made relative to the sweep file's directory (spec.dir), as a path in the base is.
nlohmann::json sweepPointJson(const SweepSpec& spec, const std::vector<nlohmann::json>& values);

// A hash of sweepPointJson: what a resumed row is checked against (sweep_table.h).
std::uint64_t sweepPointScenarioHash(const SweepSpec& spec, std::size_t index);

// sweepPointJson read back as a scenario file is read.
// Throws InputError naming the scenario field and the rule a value broke.
Scenario sweepPointScenario(const SweepSpec& spec, const std::vector<nlohmann::json>& values);

}  // namespace moe
