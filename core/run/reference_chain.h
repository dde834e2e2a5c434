#pragma once
// The golden chain of the MoE layer: the references of every operator applied to the same
// gating output. Dispatch rows are not materialized (see dispatchReference): verification
// checks each received row, and each expert output row, against the source row its
// expandIdx names.

#include <memory>
#include <vector>

#include "core/reference/dispatch_reference.h"
#include "core/reference/gating.h"
#include "core/reference/layout.h"
#include "core/reference/update_expert.h"
#include "core/run/resolved_scenario.h"

namespace moe {

struct ReferenceLayer {
  std::shared_ptr<const std::vector<RankGating>> gating;
  std::vector<UpdateExpertResult> updateExpert;  // per rank
  std::vector<LayoutResult> layout;              // per rank
  std::vector<DispatchOutput> dispatch;          // per rank, expandX empty
};

// The chain for a resolved scenario (the MoE layer) on its gating.
ReferenceLayer computeReference(const ResolvedScenario& rs);
// The same on a resolved Scenario (its eplb table in place) and a given gating.
ReferenceLayer computeReference(const Scenario& resolved,
                                std::shared_ptr<const std::vector<RankGating>> gating);

}  // namespace moe
