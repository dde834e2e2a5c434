#pragma once
// The Experts view's data is the core's (core/run/expert_balance.h): the same figures
// `moe-sim run` prints. Aliased here so the view and the queued signal name it in ui terms.

#include "core/run/expert_balance.h"

namespace moe::ui {

using moe::computeExpertLoad;
using moe::ExpertLoad;
using moe::imbalance;

}  // namespace moe::ui
