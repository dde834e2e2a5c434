#pragma once
// The checks of a finished MoE layer run against its golden chain, one function per stage.
// Each returns its named checks (VerificationCheck): bit-exact where the order is defined,
// within the stated bound where the combine's fp32 sums run in another order.

#include <vector>

#include "core/run/layer_run.h"
#include "core/run/reference_chain.h"

namespace moe {

std::vector<VerificationCheck> verifyUpdateExpert(const LayerRun& run, const ReferenceLayer& ref);
std::vector<VerificationCheck> verifyLayout(const LayerRun& run, const ReferenceLayer& ref);
// Dispatch's metadata and rows; then the experts' output rows. Apart, because a run that
// frees tensors when dead checks dispatch before the experts overwrite its rows in place.
std::vector<VerificationCheck> verifyDispatch(const LayerRun& run, const ReferenceLayer& ref);
std::vector<VerificationCheck> verifyExperts(const LayerRun& run, const ReferenceLayer& ref);
std::vector<VerificationCheck> verifyCombine(const LayerRun& run, const ReferenceLayer& ref);
std::vector<VerificationCheck> verifyProtocol(const LayerRun& run, const ReferenceLayer& ref);

}  // namespace moe
