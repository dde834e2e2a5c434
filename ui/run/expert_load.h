#pragma once
// Tokens per logical expert, per physical instance and per rank, before and after
// MoeUpdateExpert (SPEC §4 "expert load"), computed from the gating output and the
// UpdateExpert golden reference (bit-exact with the emulated kernel).

#include <memory>
#include <string>
#include <vector>

#include "core/ops/gating.h"
#include "core/scenario/scenario.h"

namespace moe::ui {

struct ExpertLoad {
  std::vector<double> perExpert;          // logical expert: the router's choice, unchanged by EPLB
  std::vector<double> perInstanceBefore;  // identity placement: logical e on instance e
  std::vector<double> perInstanceAfter;   // the instances UpdateExpert chose
  std::vector<double> perRankBefore;
  std::vector<double> perRankAfter;
  int placePerRank = 1;
  // Non-empty when the workload has no experts (the fused AlltoAll-Matmul-ReduceScatter):
  // says why, and the view shows it instead of empty charts.
  std::string notApplicable;
};

// max/mean of the values; 0 for an empty or all-zero list.
double imbalance(const std::vector<double>& v);

ExpertLoad computeExpertLoad(const Scenario& sc, const std::vector<RankGating>& gating);

}  // namespace moe::ui
