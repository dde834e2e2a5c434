#pragma once
// Where a scenario leaves what the real CANN mc2 operators accept on its profile's product,
// and the HCCL_BUFFSIZE those operators would need for it. The emulator runs past these
// limits; the warnings say where a result no longer describes a shipped operator.

#include <cstdint>
#include <string>
#include <vector>

#include "core/plan/real_operator_table.h"
#include "core/scenario/scenario.h"

namespace moe {

// One documented limit the scenario exceeds. field is the scenario's JSON path
// ("model.tokens_per_rank"); message says which operator, which limit and the value, e.g.
// "the real MoeDistributeDispatchV2 on A2 (commAlg fullmesh) accepts BS <= 256; this
// scenario has 512".
struct LimitWarning {
  std::string field;
  std::string message;
};

// The A2 communication algorithms of the selection's designs (the design table's commAlg:
// phased and streaming "hierarchy", flat "fullmesh"), each once, in report order.
std::vector<std::string> commAlgsFor(const DesignSelection& designs);

// Whether table entry e describes an operator call this scenario makes: its product, an
// operator the layer calls (CombineV2 or CombineAddRmsNorm by combine.add_rms_norm;
// MoeUpdateExpert only when the eplb settings remap experts) and, on A2, a commAlg of one of
// the scenario's designs.
bool entryApplies(const Scenario& sc, const OperatorEntry& e);

// Every documented limit the scenario exceeds on its profile's product, in table order.
// Empty for a product with no CANN operators ("none") and for the fused workload.
std::vector<LimitWarning> realOperatorWarnings(const Scenario& sc);

// The HCCL_BUFFSIZE (MB, as the documents count it: 1 MB = 2^20 B) one communication
// algorithm needs: the largest over the operators the scenario calls.
struct BuffsizeNeed {
  std::string commAlg;     // "" on A3 (no choice)
  std::int64_t megabytes;  // rounded up
  std::string op;          // the operator that needs the most
};
// In the order of commAlgsFor(sc.dispatchImpl).
std::vector<BuffsizeNeed> hcclBuffsizeNeeds(const Scenario& sc);

// The summary line: "real CANN operators (A2): HCCL_BUFFSIZE >= 75 MB for commAlg hierarchy
// (MoeDistributeDispatchV2)"; "" when the product has none.
std::string hcclBuffsizeLine(const Scenario& sc);

}  // namespace moe
