#pragma once
// Scenario <-> JSON (schema: docs/SCENARIO.md). Reading rejects unknown keys, wrong types,
// out-of-range values and inconsistent combinations with InputError(path, rule), so the
// emulation never sees a scenario it cannot run. Writing then reading is exact.

#include <nlohmann/json.hpp>
#include <string>

#include "core/scenario/scenario.h"
#include "core/scenario/scenario_enums.h"

namespace moe {

// Every key is optional and defaults to the Scenario struct default. Runs
// validateScenario() on the result.
Scenario scenarioFromJson(const nlohmann::json& j);
// A ring tiling's JSON keys (flat under "rings", or under "rings.dispatch" / "rings.combine"),
// as readRingTiling reads them.
inline constexpr const char* kRingTilingKeys[] = {"chunk_bytes", "queue_chunks", "sender_cores",
                                                  "forwarder_cores", "receiver_cores"};

// Every field; hardware overrides are written as the fields that differ from the named
// built-in profile. scenarioFromJson(scenarioToJson(s)) == s for any valid s.
nlohmann::json scenarioToJson(const Scenario& s);

// The rules that span fields (cluster vs profile, experts vs ranks, EPLB table shape,
// routing parameters vs model, core split vs AIV cores, payload size guard).
// Per-field types and ranges are enforced while reading JSON. Throws InputError.
void validateScenario(const Scenario& s);

// Reads and validates a scenario file (a regular file of at most kMaxScenarioFileBytes).
// Unreadable → InputError(path, ...); malformed JSON → InputError(path, "line L, column C:
// not valid JSON: ..."); a duplicate key → InputError(its JSON path, "duplicate key ...").
// A relative routing.trace_file is resolved against the scenario file's directory.
Scenario loadScenarioFile(const std::string& path);

// The embedded resources/scenarios/default.json, parsed (equal to Scenario{}).
Scenario defaultScenario();

}  // namespace moe
