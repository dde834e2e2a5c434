// One engine run of a tuning candidate, and the figures and rules the search reads from it.

#include "core/studies/tune_eval.h"

#include <algorithm>

#include "core/plan/dispatch_tiling.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

namespace moe {

std::string toString(TuneObjective o) {
  switch (o) {
    case TuneObjective::Dispatch:
      return "dispatch";
    case TuneObjective::Combine:
      return "combine";
    case TuneObjective::Layer:
      break;
  }
  return "layer";
}

int standInTokens(int tokensPerRank) {
  return std::max(32, tokensPerRank / 8);
}

double tuneFigure(const TuneEval& e, TuneObjective o) {
  switch (o) {
    case TuneObjective::Dispatch:
      return e.dispatchUs;
    case TuneObjective::Combine:
      return e.combineUs;
    case TuneObjective::Layer:
      break;
  }
  return e.totalUs;
}

std::string tuneConstraint(const Scenario& candidate) {
  try {
    validateScenario(candidate);
    // The candidate's routing trace is its base's, read and checked once by tuneStreaming.
    const CheckedScenario c = checkScenario(candidate, InputCheck::InputsGiven);
    const std::int64_t rings = streamingRingBytesPerCard(c.scenario);
    if (rings > ringHbmBudget(c.scenario))
      return "HBM budget for rings: " + std::to_string(rings >> 20) +
             " MiB per card > 1/16 of HBM (" + std::to_string(ringHbmBudget(c.scenario) >> 20) +
             " MiB)";
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TuneEval evaluateTuneRun(const Scenario& sc, const TuneKnobs& k, TuneObjective objective,
                         Design design,
                         const std::shared_ptr<const std::vector<RankGating>>& gating) {
  TuneEval e;
  e.knobs = k;
  e.tokensPerRank = sc.model.tokensPerRank;
  try {
    const ResolvedScenario rs = ResolvedScenario::resolve(withKnobs(sc, k, objective), gating);
    auto run = makeRun(rs, design);
    run->runToEnd();
    const RunResult res = run->result();
    if (res.deadlocked) {
      e.error = "deadlock: " + res.deadlockDiagnosis;
      return e;
    }
    e.totalUs = toMicroseconds(res.end);
    for (const StageReport& st : res.stages) {
      const double us = toMicroseconds(st.duration());
      e.stageUs.emplace_back(st.name, us);
      if (st.id == StageId::Dispatch) e.dispatchUs += us;
      if (st.id == StageId::Combine) {
        e.combineUs += us;
        e.combinePosts += st.rdmaPosts;
        e.combineRdmaBytes += static_cast<double>(st.rdmaDataBytes);
      }
    }
    e.ok = true;
  } catch (const std::exception& ex) {
    e.error = ex.what();
  }
  return e;
}

// The design's name in the run log.
const char* tuneLogDesign(Design d) {
  return designName(d).data();  // the design table's names are string literals
}

}  // namespace moe
