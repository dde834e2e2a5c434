#include "core/studies/tune_jobs.h"

#include <algorithm>
#include <chrono>

#include "core/studies/tune_eval.h"
#include "core/util/parallel_map.h"

namespace moe {

TuneJobRunner::TuneJobRunner(const TuneOptions& opt, const Scenario& full,
                             const std::string& logTitle)
    : opt_(opt) {
  if (opt.clock) {
    clock_ = opt.clock;
  } else {
    const auto start = std::chrono::steady_clock::now();
    clock_ = [start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
  }
  if (!opt.logPath.empty())
    log_ = std::make_unique<TuneLog>(opt.logPath, tuneLogHash(full, opt.objective), logTitle,
                                     opt.resume);
}

double TuneJobRunner::estimateSeconds(bool standIn) const {
  return standIn ? longestStandIn_ : longestFull_;
}

unsigned TuneJobRunner::waves(int runs) const {
  if (runs <= 0) return 0;
  const unsigned t = resolveThreadCount(opt_.threads, static_cast<std::size_t>(runs));
  return (static_cast<unsigned>(runs) + t - 1) / t;
}

// Seconds a phase must leave for the phases after it.
double TuneJobRunner::reserveSeconds(TunePhase p) const {
  const double confirm = waves(confirmRuns_) * longestFull_;
  if (p == TunePhase::Search)
    return confirm + waves(neighbourRuns_) * estimateSeconds(searchIsStandIn_);
  if (p == TunePhase::Neighbours) return confirm;
  return 0;
}

// Whether a run starting at `now` ends, by the longest run of its shape so far, in time to
// leave the later phases their room.
bool TuneJobRunner::mayStart(const TuneJob& j, TunePhase p, double now) {
  if (opt_.timeLimitSeconds <= 0 || p == TunePhase::Required) return true;
  std::lock_guard lock(mutex_);
  return now + estimateSeconds(j.shape->standIn) + reserveSeconds(p) <= opt_.timeLimitSeconds;
}

// One job: from the log when it is there; nothing when the time limit says not to start.
std::optional<TuneEval> TuneJobRunner::runOne(const TuneJob& j, TunePhase phase) {
  const std::string key =
      tuneRunKey(tuneLogDesign(j.design), j.shape->sc.model.tokensPerRank, j.knobs);
  if (log_ != nullptr)
    if (const TuneEval* e = log_->find(key)) {
      countProgress();
      return *e;
    }
  const double t0 = clock_();
  if (!mayStart(j, phase, t0)) return std::nullopt;
  TuneEval e = evaluateTuneRun(j.shape->sc, j.knobs, opt_.objective, j.design, j.shape->gating);
  const double took = clock_() - t0;
  e.standIn = j.shape->standIn;
  {
    std::lock_guard lock(mutex_);
    double& longest = j.shape->standIn ? longestStandIn_ : longestFull_;
    longest = std::max(longest, took);
  }
  if (log_ != nullptr) log_->append(key, tuneLogDesign(j.design), e);
  countProgress();
  return e;
}

std::vector<std::optional<TuneEval>> TuneJobRunner::run(const std::vector<TuneJob>& jobs,
                                                        TunePhase phase) {
  auto results = parallelMap<std::optional<TuneEval>>(
      jobs.size(), [&](std::size_t i) { return runOne(jobs[i], phase); },
      {opt_.threads, {}, opt_.cancel});
  std::vector<std::optional<TuneEval>> done(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!results[i]) continue;  // cancelled before it started
    if (!*results[i]) {
      timeCut_.insert(phase);
      continue;
    }
    ++runs_;
    if ((*results[i])->fromLog) ++fromLog_;
    done[i] = std::move(*results[i]);
  }
  return done;
}

void TuneJobRunner::countProgress() {
  std::lock_guard lock(progressMutex_);
  ++progress_;
  if (opt_.onProgress) opt_.onProgress(progress_, opt_.budget);
}

}  // namespace moe
