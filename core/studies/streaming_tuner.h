#pragma once
// `moe-sim tune`: searches the streaming design's knobs - ring chunk, queue depth,
// sender / forwarder / receiver cores, combine.rdma_batch_bytes, combine.partial_dtype,
// combine.ub_window_rows and combine.sum_local_experts (core/studies/tune_knobs.h) - for the
// shortest layer, dispatch or combine. Every candidate is run on the engine (payload none:
// the same protocol and timing, no tensor bytes), candidates of a round in parallel
// (core/util/parallel_map.h). The search starts with the role model's best tilings
// (core/plan/dispatch_tiling.h; its proposal for a stage objective always runs at the full
// shape), then coordinate descent from the best so far, then seeded random moves, then checks of
// the best's neighbours; on a large scenario the candidates run on a stand-in with fewer tokens and
// the best few are confirmed at the full shape. With a budget (and no time limit) the result is
// deterministic for a scenario and seed, whatever the thread count. Hard constraints (UB per role,
// minimum record size, AIV core count, ring HBM budget) are checked before a run.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/scenario/scenario.h"
#include "core/studies/tune_knobs.h"

namespace moe {

// Candidates run on the stand-in when the scenario has at least this many tokens per rank.
constexpr int kStandInFromTokens = 1024;
// The stand-in's tokens per rank: an eighth, at least 32.
int standInTokens(int tokensPerRank);

struct TuneOptions {
  // Every engine run the search makes: baseline, phased, candidates (stand-in and full
  // shape) and neighbour checks. At least 2 (the baseline and phased).
  int budget = 64;
  // Bounds the whole search, neighbour checks and confirmations included (0 = none): no run
  // starts that the runs so far say would end past it.
  double timeLimitSeconds = 0;
  // Seconds since the search started; called from worker threads. Empty: a steady clock
  // started by tuneStreaming. Tests inject their own, so nothing depends on wall time.
  std::function<double()> clock;
  TuneObjective objective = TuneObjective::Layer;
  // The two knobs that change what the combine computes (partial dtype, local sums) stay as
  // given.
  bool keepNumerics = false;
  // Run candidates on a stand-in (standInTokens) and confirm the best few at the full shape,
  // when tokens_per_rank >= kStandInFromTokens.
  bool standIn = true;
  std::uint64_t seed = 0;  // random moves; 0 = the scenario's seed
  unsigned threads = 0;    // 0 = the machine's cores
  // Runs done (read from the log included) out of the budget; from worker threads, one call
  // at a time, never decreasing.
  std::function<void(int done, int total)> onProgress;
  const std::atomic<bool>* cancel = nullptr;
  // Appends every completed run as one JSON line (core/studies/tune_log.h); with `resume`,
  // runs already in it are read, not run again.
  std::string logPath;
  bool resume = false;
};

// One engine run's figures (microseconds, RDMA posts of the combine stage).
struct TuneEval {
  TuneKnobs knobs;
  bool ok = false;
  std::string error;  // a failed run (deadlock diagnosis or error)
  double totalUs = 0, dispatchUs = 0, combineUs = 0;
  std::vector<std::pair<std::string, double>> stageUs;
  std::int64_t combinePosts = 0;
  double combineRdmaBytes = 0;
  int tokensPerRank = 0;  // the shape it ran at: the scenario's, or the stand-in's
  bool standIn = false;
  bool fromLog = false;  // read from the run log, not run in this process
};

// The objective's figure of a run (microseconds).
double tuneFigure(const TuneEval& e, TuneObjective o);

// Per knob, in words, why the best value is where it is.
struct TuneBinding {
  std::string knob;   // scenario field path
  std::string value;  // the best value
  std::string why;
};

struct TuneResult {
  Scenario tuned;  // the given scenario with the best knobs
  TuneObjective objective = TuneObjective::Layer;
  // At the full shape: the scenario's own knobs, the best confirmed, the phased design.
  TuneEval baseline, best, phased;
  std::vector<TuneEval> evaluated;  // every candidate run at the search shape, in run order
  std::vector<TuneEval> confirmed;  // the stand-in's leaders run again at the full shape
  // `moe-sim tiling`'s proposal for the objective's stage, run at the full shape (on a
  // stand-in beside the baseline, else as the first candidate): the answer is never slower.
  // Empty for the layer objective, or when the proposal is the scenario's own tiling, cannot
  // run or the budget has no room.
  std::optional<TuneEval> proposal;
  std::vector<TuneBinding> bindings;
  int rejected = 0;         // candidates refused by a hard constraint before running
  int neighbourChecks = 0;  // runs after the search: the best's neighbours (in `evaluated`)
  int runs = 0;             // every engine run, baseline and phased included (<= budget)
  int fromLog = 0;          // of those, read from the run log
  int standInTokens = 0;    // 0: the candidates ran at the full shape
  std::string standInNote;  // why there is no stand-in when one was asked for
  // What ended the search early ("budget", "time limit", "cancelled"; "" = it ran its
  // course) and, in words, what it left undone.
  std::string stoppedBy;
  std::vector<std::string> notDone;
};

// Hard constraints of a candidate: "" when it can run, else the rule it breaks. The routing
// trace is not read again: a candidate shares its base's, which tuneStreaming checks.
std::string tuneConstraint(const Scenario& candidate);

TuneResult tuneStreaming(const Scenario& given, const TuneOptions& options);

}  // namespace moe
