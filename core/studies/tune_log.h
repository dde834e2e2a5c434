#pragma once
// The run log of `moe-sim tune --log FILE`: a header line naming the tune (a hash of its
// scenario and objective), then one JSON line per completed engine run - its design, shape,
// knobs, figures and status - flushed as it is written, so a killed tune leaves every run
// it finished. `--resume` reads the runs back: the search takes the same path and finds
// them here instead of running them again, so it ends with the result of an uninterrupted
// tune.

#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

#include "core/studies/streaming_tuner.h"

namespace moe {

// The key of one run in the log: design, tokens per rank and knobs.
std::string tuneRunKey(const char* design, int tokensPerRank, const TuneKnobs& k);

class TuneLog {
 public:
  // Opens `path` for the tune whose header hash is `hash` (`what` says what it hashes).
  // Without `resume` the file must be absent or empty. With it, an absent file starts anew;
  // else line 1 must carry this hash and every later line a run. A last line cut short (no
  // newline: the tune was killed while writing it) is dropped from the file. Otherwise the
  // error (InputError on "--log") names the file and the line.
  TuneLog(const std::string& path, const std::string& hash, const std::string& what, bool resume);

  // The run with this key, or nullptr.
  const TuneEval* find(const std::string& key) const;
  // Appends a run (any thread; one whole line, flushed).
  void append(const std::string& key, const char* design, const TuneEval& e);
  int runsRead() const { return static_cast<int>(runs_.size()); }

 private:
  std::string path_;
  std::map<std::string, TuneEval> runs_;
  std::ofstream out_;
  std::mutex mutex_;
};

// The header hash of a tune: its scenario (as the runs see it) and objective.
std::string tuneLogHash(const Scenario& timingScenario, TuneObjective objective);

}  // namespace moe
