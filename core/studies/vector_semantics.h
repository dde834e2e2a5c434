#pragma once
// The exact semantics of the MoE layer's exported operators, as the manifest states them
// (manifest.json "semantics"): every rule a kernel author could guess wrong from the
// argument names alone (rounding of a division, a comparison's boundary, which ids are
// masked, a mask per token or per slot, the order of a floating-point sum). The goldens
// are computed by core/reference exactly so; these texts describe that code.

#include <nlohmann/json.hpp>

namespace moe::vectors {

// One object per operator name ("moe_update_expert", "get_dispatch_layout",
// "moe_distribute_dispatch", "moe_distribute_combine", "moe_distribute_combine_add_rms_norm")
// and "device_api" (why each device-API attribute has its value), each a map from the
// argument or rule to its text.
nlohmann::json moeLayerSemantics();

}  // namespace moe::vectors
