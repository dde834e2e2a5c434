#pragma once
// Writing a scenario a command made (`tune --out`, `tiling --out`) as JSON, atomically.

#include <string>

#include "core/scenario/scenario.h"

namespace moesim {

// Writes `sc` to `path` (the flag `flag` named it). A relative routing trace path is read
// from the scenario file's own directory, so it is rewritten relative to where this file is
// written, and still names the same trace.
void writeScenarioFile(const moe::Scenario& sc, const std::string& path, const std::string& flag);

}  // namespace moesim
