#pragma once
// The MoE layer's operator arguments as a scenario gives them: the eplb_table, the
// MoeUpdateExpert arguments of one rank, and the instances per rank the table implies.

#include <cstdint>
#include <utility>
#include <vector>

#include "core/reference/gating.h"
#include "core/reference/update_expert.h"
#include "core/scenario/scenario.h"

namespace moe {

// The eplb_table a resolved scenario uses: its explicit table, or the identity (expert e on
// instance e). Returns {rows [E*F], F}.
std::pair<std::vector<std::int32_t>, int> scenarioTable(const Scenario& sc);

// UpdateExpert arguments for one rank, from the gating output: the whole batch, or the
// tokens [tokenBegin, tokenEnd) of it (one slice, see layerUpdateExpert).
UpdateExpertArgs updateExpertArgs(const Scenario& sc, const RankGating& g, int rank);
UpdateExpertArgs updateExpertArgs(const Scenario& sc, const RankGating& g, int rank, int tokenBegin,
                                  int tokenEnd);

// MoeUpdateExpert takes at most kUpdateExpertMaxBs tokens, dispatch and combine up to
// kMaxTokensPerRank. Inside the layer it runs once per slice of at most kUpdateExpertMaxBs
// consecutive tokens (slice i = tokens [512 i, min(BS, 512 (i + 1)))). Each call sees its
// slice as a batch of its own, so balance mode 1 (by token) counts tokens from the slice's
// start. A batch of at most 512 tokens is one slice: the plain operator call.
struct TokenSlice {
  int begin;
  int end;
};
std::vector<TokenSlice> updateExpertSlices(int tokensPerRank);

// The layer's MoeUpdateExpert on one rank: the reference on each slice, concatenated
// ([BS*K] ids and, with pruning, [BS*K] keep-mask).
UpdateExpertResult layerUpdateExpert(const Scenario& sc, const RankGating& g, int rank);

// Instances per rank of a resolved scenario's eplb table; throws InputError ("eplb....")
// when the table breaks a MoeUpdateExpert rule or contradicts eplb.place_per_rank.
int scenarioPlacePerRank(const Scenario& sc);

}  // namespace moe
