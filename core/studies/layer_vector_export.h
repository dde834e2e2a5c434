#pragma once
// The MoE layer's golden test vectors: every operator of the layer, rank by rank, with the
// reference chain's outputs as goldens (moe-sim export-vectors, vector_export.h).

#include "core/run/resolved_scenario.h"
#include "core/studies/vector_export.h"
#include "core/studies/vector_writer.h"

namespace moe::vectors {

void exportMoeLayer(const ResolvedScenario& rs, const VectorExportOptions& o, Writer& w);

}  // namespace moe::vectors
