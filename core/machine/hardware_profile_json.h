#pragma once
// JSON mapping of HardwareProfile fields: the snake_case keys of resources/profiles/*.json
// and of a scenario's "hardware.overrides". Every value is range-checked so that an edited
// profile can never feed the machine model a zero bandwidth or a 2^40-core card.

#include <nlohmann/json.hpp>
#include <string>

#include "core/machine/hardware_profile.h"

namespace moe {

// Sets the field named key (a HardwareProfile::fieldNames() entry) from value.
// Throws InputError(path, rule) on an unknown key, a wrong type or an out-of-range value.
// Ranges: core counts 1..128; byte sizes > 0 and bounded; bandwidths in (0, 100000] GB/s;
// latencies 0..1e9 ns; dma_align_bytes a power of two in 1..4096; cards_per_server 1..64;
// fabric "hccs-mesh", "supernode" or "switch".
void applyProfileField(HardwareProfile& profile, const std::string& key,
                       const nlohmann::json& value, const std::string& path);

// Flat {snake_case_key: value} of every field in fieldNames() (the name is not a field).
nlohmann::json profileToJson(const HardwareProfile& profile);

// The "source" note of a built-in profile's field (e.g. "CANN platform config .ini ...").
// Throws InputError("hardware.profile", ...) for an unknown profile; returns "" for a key the
// profile does not define.
std::string profileFieldSource(const std::string& profileName, const std::string& key);

}  // namespace moe
