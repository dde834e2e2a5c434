#pragma once
// The tuner's run machinery: runs candidate jobs in parallel, reads them from the resume log
// when they are there, stops starting runs that a time limit would cut, and counts progress.
// The search (streaming_tuner.cpp) decides what to run; this decides whether and how.

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "core/reference/gating.h"
#include "core/run/design.h"
#include "core/studies/streaming_tuner.h"
#include "core/studies/tune_log.h"

namespace moe {

// The shape candidates run at: the scenario's own, or the stand-in with fewer tokens.
struct TuneShape {
  Scenario sc;
  std::shared_ptr<const std::vector<RankGating>> gating;
  bool standIn = false;
};

// What a run is for: what it must leave room for when a time limit bounds the search.
enum class TunePhase { Required, Search, Neighbours, Confirm, Explain };

struct TuneJob {
  const TuneShape* shape;
  TuneKnobs knobs;
  Design design;
};

class TuneJobRunner {
 public:
  // `logTitle` heads a new resume log; no log when opt.logPath is empty.
  TuneJobRunner(const TuneOptions& opt, const Scenario& full, const std::string& logTitle);

  // The runs the later phases need, for the time limit's reserve: `confirmRuns` at the full
  // shape after `neighbourRuns` at the search shape.
  void reserve(int confirmRuns, int neighbourRuns, bool searchIsStandIn) {
    confirmRuns_ = confirmRuns;
    neighbourRuns_ = neighbourRuns;
    searchIsStandIn_ = searchIsStandIn;
  }

  // Runs jobs in parallel (each read from the log when it is there); per job its run, or
  // nothing when it did not start (cancelled, or the time limit, which ends the phase).
  std::vector<std::optional<TuneEval>> run(const std::vector<TuneJob>& jobs, TunePhase phase);

  int runs() const { return runs_; }        // run or read from the log
  int fromLog() const { return fromLog_; }  // read from the log
  bool timeCut(TunePhase p) const { return timeCut_.count(p) > 0; }
  bool anyTimeCut() const { return !timeCut_.empty(); }
  bool cancelled() const { return opt_.cancel != nullptr && opt_.cancel->load(); }

 private:
  double estimateSeconds(bool standIn) const;  // under mutex_
  unsigned waves(int runs) const;
  double reserveSeconds(TunePhase p) const;  // under mutex_
  bool mayStart(const TuneJob& j, TunePhase p, double now);
  std::optional<TuneEval> runOne(const TuneJob& j, TunePhase phase);
  void countProgress();

  const TuneOptions& opt_;
  std::function<double()> clock_;
  std::unique_ptr<TuneLog> log_;
  int confirmRuns_ = 0, neighbourRuns_ = 0;
  bool searchIsStandIn_ = false;
  int runs_ = 0, fromLog_ = 0;
  std::set<TunePhase> timeCut_;  // phases the time limit ended
  std::mutex mutex_;             // the longest runs measured
  double longestFull_ = 0, longestStandIn_ = 0;
  std::mutex progressMutex_;
  int progress_ = 0;
};

}  // namespace moe
