#pragma once
// `moe-sim tune`: searches the streaming design's knobs - ring chunk, queue depth,
// sender / forwarder / receiver cores, combine.rdma_batch_bytes, combine.partial_dtype,
// combine.ub_window_rows and combine.sum_local_experts - for the shortest streaming layer. Every
// candidate is run on the engine (payload none: the same protocol and timing, no tensor bytes),
// candidates of a round in parallel (core/util/parallel_map.h). The search is coordinate descent
// from the scenario's own configuration, then seeded random moves, so the result is deterministic
// for a scenario, seed and budget, whatever the thread count. Hard constraints (UB per
// role, minimum record size, AIV core count, ring HBM budget) are checked before a run.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe {

struct TuneOptions {
  int budget = 48;  // engine runs of search candidates (baseline, phased, neighbour checks extra)
  std::uint64_t seed = 0;  // random moves; 0 = the scenario's seed
  unsigned threads = 0;    // 0 = the machine's cores
  std::function<void(int done, int total)> onProgress;
  const std::atomic<bool>* cancel = nullptr;
};

// The knobs of one candidate.
struct TuneKnobs {
  std::int64_t chunkBytes = 0;
  int queueChunks = 0;
  int senderCores = 0, forwarderCores = 0, receiverCores = 0;
  std::int64_t rdmaBatchBytes = 0;
  PartialDtype partialDtype = PartialDtype::Fp32;
  int ubWindowRows = 0;
  bool sumLocalExperts = false;
  bool operator==(const TuneKnobs&) const = default;
};
TuneKnobs knobsOf(const Scenario& sc);
Scenario withKnobs(const Scenario& sc, const TuneKnobs& k);

// One engine run's figures (microseconds, RDMA posts of the combine stage).
struct TuneEval {
  TuneKnobs knobs;
  bool ok = false;
  std::string error;  // a failed run (deadlock diagnosis or error)
  double totalUs = 0, dispatchUs = 0, combineUs = 0;
  std::vector<std::pair<std::string, double>> stageUs;
  std::int64_t combinePosts = 0;
  double combineRdmaBytes = 0;
};

// Per knob, in words, why the best value is where it is.
struct TuneBinding {
  std::string knob;   // scenario field path
  std::string value;  // the best value
  std::string why;
};

struct TuneResult {
  Scenario tuned;  // the given scenario with the best knobs
  TuneEval baseline, best, phased;
  std::vector<TuneEval> evaluated;  // every candidate run, in run order
  std::vector<TuneBinding> bindings;
  int rejected = 0;         // candidates refused by a hard constraint before running
  int neighbourChecks = 0;  // runs after the search: the best's neighbours (in `evaluated`)
};

// Hard constraints of a candidate: "" when it can run, else the rule it breaks. The routing
// trace is not read again: a candidate shares its base's, which tuneStreaming checks.
std::string tuneConstraint(const Scenario& candidate);

TuneResult tuneStreaming(const Scenario& given, const TuneOptions& options);

}  // namespace moe
