#pragma once
// The knobs `moe-sim tune` searches: per knob its scenario path, the values tried (ascending)
// and how it reads and writes a TuneKnobs. Values are int64 (the dtype as 0 = fp32, 1 = bf16;
// a switch as 0 / 1), so one search loop serves every knob.

#include <cstdint>
#include <string>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe {

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
// What the search minimises: the whole layer (the end of the run) or one stage's time. It
// also says which rings the ring knobs tile: that stage's own (rings.dispatch or
// rings.combine), or for the layer one tiling for both stages.
enum class TuneObjective { Layer, Dispatch, Combine };
std::string toString(TuneObjective o);

// The knobs as the scenario has them (for the layer, the dispatch's tiling), and the
// scenario with `k` applied; the other stage's rings stay as given.
TuneKnobs knobsOf(const Scenario& sc, TuneObjective objective = TuneObjective::Layer);
Scenario withKnobs(const Scenario& sc, const TuneKnobs& k,
                   TuneObjective objective = TuneObjective::Layer);

struct TuneKnob {
  const char* path;
  std::vector<std::int64_t> values;
  std::int64_t (*get)(const TuneKnobs&);
  void (*set)(TuneKnobs&, std::int64_t);
  std::string (*show)(std::int64_t);
  // Changes what the combine computes (partial dtype, local summation), not only its speed.
  bool numerics = false;
};

// Every searched knob, in search order: the combine's own knobs first (cheap to reason
// about), then the core split, then the ring shape.
const std::vector<TuneKnob>& tuneKnobs();
// A knob's scenario path under an objective: "rings.chunk_bytes" is
// "rings.combine.chunk_bytes" when the combine is tuned on its own.
std::string knobPath(const TuneKnob& knob, TuneObjective objective);

// A stable text key of the knobs ("chunk/queue/.../sum"), for the tried set and the run log.
std::string tuneKnobKey(const TuneKnobs& k);

// The combine's numerics of a streaming candidate against the phased design's (fp32 partials,
// each expert's row sent): "" when they are the same, else "streaming with bf16 partials and
// local sums vs phased fp32: different numerics".
std::string numericsVsPhased(const TuneKnobs& streaming);

}  // namespace moe
