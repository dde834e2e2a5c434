#include "core/studies/streaming_tuner.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "core/plan/dispatch_tiling.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/tune_bindings.h"
#include "core/studies/tune_eval.h"
#include "core/studies/tune_jobs.h"
#include "core/util/error.h"
#include "core/util/rng.h"

namespace moe {

namespace {

constexpr int kConfirmAtFullShape = 3;  // stand-in leaders run again at the full shape
constexpr int kNeighbourRounds = 8;
constexpr double kFlatLeaders = 0.10;  // stand-in figures this close are confirmed if time allows
constexpr unsigned kRandomRound = 4;   // candidates per random round, whatever the threads
// The role model's best tilings (dispatch_tiling.h), run before the coordinate descent so it
// starts from the best of them: on 4 x 8 x 4096 the scenario's own tiling led the descent to
// a queue and a core split 27% slower at full shape than the model's neighbourhood.
constexpr std::size_t kModelSeeds = 4;

// One search, step by step: the baseline and phased side by side, coordinate descent per
// knob, seeded random moves of two knobs at once, neighbour checks around the best, the
// stand-in's leaders confirmed at full shape, then why each knob stops where it does. The
// budget counts every run; a time limit stops runs from starting that would end past it,
// leaving room (by the runs measured so far) for the neighbour checks and confirmations.
class TuneSearch {
 public:
  TuneSearch(const Scenario& given, const TuneOptions& opt) : given_(given), opt_(opt) {
    full_.sc = given;
    full_.sc.payload = PayloadMode::None;  // timing only: the same protocol, no tensor bytes
    // The scenario as given must itself be runnable: it is the baseline.
    if (const std::string why = tuneConstraint(full_.sc); !why.empty())
      throw InputError("rings", "the scenario's own tiling cannot run: " + why);
    {
      const ResolvedScenario resolved = ResolvedScenario::resolve(full_.sc);
      full_.gating = resolved.gating();
      placePerRank_ = resolved.placePerRank();
    }
    for (const TuneKnob& kn : tuneKnobs())
      if (!(opt.keepNumerics && kn.numerics)) searched_.push_back(&kn);
    out_.objective = opt.objective;
    chooseStandIn();
    jobs_ = std::make_unique<TuneJobRunner>(
        opt, full_.sc, "scenario '" + given.name + "', objective " + toString(opt.objective));
  }

  TuneResult run() {
    seeds_ = modelSeeds();
    runRequired();
    planReserves();
    runRound(seeds_, TunePhase::Search);
    descend();
    randomMoves();
    checkNeighbours();
    if (search().standIn) {
      confirm();
      explainAnswer();
      confirmFlatLeaders();
    } else {
      out_.best = lead_;
    }
    noteUnrunNeighbours();
    out_.tuned = withKnobs(given_, out_.best.knobs, opt_.objective);
    const TuneBindingInputs in{full_.sc, opt_.objective, out_, searched_,
                               [this](const TuneKnobs& k) { return measured(k); }};
    for (const TuneKnob& kn : tuneKnobs()) out_.bindings.push_back(tuneBinding(kn, in));
    if (cancelled())
      out_.stoppedBy = "cancelled";
    else if (jobs_->anyTimeCut())
      out_.stoppedBy = "time limit";
    else if (budgetCut_)
      out_.stoppedBy = "budget";
    return out_;
  }

 private:
  const TuneShape& search() const { return standIn_ ? *standIn_ : full_; }
  bool cancelled() const { return jobs_->cancelled(); }
  bool better(const TuneEval& a, const TuneEval& b) const {
    return a.ok && (!b.ok || tuneFigure(a, opt_.objective) < tuneFigure(b, opt_.objective));
  }

  // Large scenarios search on a stand-in with an eighth of the tokens; small ones (and a
  // scenario whose stand-in cannot run) search at the full shape.
  void chooseStandIn() {
    const int tokens = full_.sc.model.tokensPerRank;
    if (!opt_.standIn || tokens < kStandInFromTokens) return;
    // Room for the required runs, a few candidates and the confirmations.
    if (opt_.budget < 3 + 2 * kConfirmAtFullShape) {
      out_.standInNote =
          "no stand-in: a budget under " + std::to_string(3 + 2 * kConfirmAtFullShape) +
          " runs leaves no room to confirm its leaders; candidates ran at the full shape";
      return;
    }
    TuneShape s;
    s.sc = full_.sc;
    s.sc.model.tokensPerRank = standInTokens(tokens);
    s.standIn = true;
    try {
      if (const std::string why = tuneConstraint(s.sc); !why.empty()) throw InputError("", why);
      s.gating = ResolvedScenario::resolve(s.sc).gating();
    } catch (const std::exception& e) {
      out_.standInNote = "no stand-in at " + std::to_string(s.sc.model.tokensPerRank) +
                         " tokens per rank (" + e.what() + "): candidates ran at the full shape";
      return;
    }
    standIn_ = std::make_unique<TuneShape>(std::move(s));
    out_.standInTokens = standIn_->sc.model.tokensPerRank;
  }

  // Runs jobs through the run machinery; the result counts every run, the log's included.
  std::vector<std::optional<TuneEval>> runJobs(const std::vector<TuneJob>& jobs, TunePhase phase) {
    std::vector<std::optional<TuneEval>> done = jobs_->run(jobs, phase);
    out_.runs = jobs_->runs();
    out_.fromLog = jobs_->fromLog();
    return done;
  }

  // ---- the steps ----

  // The baseline and phased at the full shape, side by side, and the baseline at the
  // stand-in: the figures every candidate is compared with.
  //
  // With a stage as the objective, `moe-sim tiling`'s proposal for that stage (the first
  // model seed) is required too, at the full shape: whatever the stand-in or the bounds make
  // of the search, the answer is then never slower than the proposal. On a stand-in it runs
  // beside the baseline (the answer is the best full-shape figure); without one it is the
  // first candidate.
  void runRequired() {
    const TuneKnobs own = knobsOf(full_.sc, opt_.objective);
    const bool proposal =
        opt_.objective != TuneObjective::Layer && !seeds_.empty() && !(seeds_.front() == own) &&
        tuneConstraint(withKnobs(full_.sc, seeds_.front(), opt_.objective)).empty() &&
        opt_.budget > 2;
    std::vector<TuneJob> jobs = {{&full_, own, Design::Streaming}, {&full_, own, Design::Phased}};
    if (proposal && standIn_) jobs.push_back({&full_, seeds_.front(), Design::Streaming});
    if (standIn_) jobs.push_back({standIn_.get(), own, Design::Streaming});
    const std::vector<std::optional<TuneEval>> r = runJobs(jobs, TunePhase::Required);
    for (const auto& e : r)
      if (!e) throw InputError("tune", "cancelled before the baseline ran");
    out_.baseline = *r[0];
    out_.phased = *r[1];
    lead_ = *r.back();
    tried_.insert(tuneKnobKey(lead_.knobs));
    if (proposal && standIn_) out_.proposal = *r[2];
    if (proposal && !standIn_) {
      runRound({seeds_.front()}, TunePhase::Required);
      if (const TuneEval* p = measured(seeds_.front())) out_.proposal = *p;
    }
  }

  // The role model's best distinct tilings for the objective's stage (for the layer, both
  // stages' in turn), each with the scenario's other knobs; the first is the proposal of
  // `moe-sim tiling` for that stage. None when the model cannot rank the scenario.
  std::vector<TuneKnobs> modelSeeds() {
    std::vector<RingStage> stages;
    if (opt_.objective != TuneObjective::Dispatch) stages.push_back(RingStage::Combine);
    if (opt_.objective != TuneObjective::Combine) stages.push_back(RingStage::Dispatch);
    std::vector<std::vector<TilingCandidate>> ranked;
    try {
      for (RingStage st : stages)
        ranked.push_back(rankTilings(full_.sc, placePerRank_, st, kModelSeeds));
    } catch (const std::exception& e) {
      out_.notDone.push_back(std::string("no model seeds: the role model refused the scenario (") +
                             e.what() + ")");
      return {};
    }
    std::vector<TuneKnobs> seeds;
    std::set<std::string> keys;
    for (std::size_t i = 0; i < kModelSeeds; ++i)
      for (const auto& r : ranked) {
        if (i >= r.size()) continue;
        const RingTiling& t = r[i].tiling;
        TuneKnobs k = knobsOf(full_.sc, opt_.objective);
        k.chunkBytes = t.chunkBytes;
        k.queueChunks = t.queueChunks;
        k.senderCores = t.senderCores;
        k.forwarderCores = t.forwarderCores;
        k.receiverCores = t.receiverCores;
        if (keys.insert(tuneKnobKey(k)).second && seeds.size() < kModelSeeds) seeds.push_back(k);
      }
    return seeds;
  }

  // Runs the budget keeps for the neighbour checks and the stand-in's confirmations.
  void planReserves() {
    confirmRuns_ = standIn_ ? kConfirmAtFullShape : 0;
    const int left = opt_.budget - out_.runs - confirmRuns_;
    neighbourRuns_ =
        std::min(static_cast<int>(neighbours(lead_.knobs).size()), std::max(0, left / 2));
    jobs_->reserve(confirmRuns_, neighbourRuns_, search().standIn);
  }

  int room(TunePhase p) const {
    int reserve = 0;
    if (p == TunePhase::Search) reserve = confirmRuns_ + neighbourRuns_;
    if (p == TunePhase::Neighbours) reserve = confirmRuns_;
    return opt_.budget - out_.runs - reserve;
  }
  bool stopped(TunePhase p) const { return room(p) <= 0 || jobs_->timeCut(p) || cancelled(); }

  // Runs a round of candidates at the search shape; keeps the best (ties: the earlier).
  bool runRound(const std::vector<TuneKnobs>& cands, TunePhase phase) {
    std::vector<TuneJob> jobs;
    for (const TuneKnobs& k : cands) {
      if (static_cast<int>(jobs.size()) >= room(phase)) {
        budgetCut_ = true;
        break;
      }
      if (!tried_.insert(tuneKnobKey(k)).second) continue;
      if (!tuneConstraint(withKnobs(full_.sc, k, opt_.objective)).empty()) {
        ++out_.rejected;
        continue;
      }
      jobs.push_back({&search(), k, Design::Streaming});
    }
    if (jobs.empty() || cancelled()) return false;
    bool improved = false;
    std::vector<std::optional<TuneEval>> results = runJobs(jobs, phase);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (!results[i]) {
        tried_.erase(tuneKnobKey(jobs[i].knobs));  // not run: a later phase may run it
        continue;
      }
      out_.evaluated.push_back(*results[i]);
      if (better(*results[i], lead_)) {
        lead_ = *results[i];
        improved = true;
      }
    }
    return improved;
  }

  // Coordinate descent: per knob, every value (nearest to the current one first).
  void descend() {
    bool improvedInPass = true;
    int pass = 0;
    while (improvedInPass && !stopped(TunePhase::Search)) {
      improvedInPass = false;
      ++pass;
      for (const TuneKnob* kn : searched_) {
        if (stopped(TunePhase::Search)) break;
        improvedInPass = runRound(valuesOutward(*kn), TunePhase::Search) || improvedInPass;
      }
    }
    if (improvedInPass && !cancelled())
      out_.notDone.push_back("coordinate descent: pass " + std::to_string(pass) +
                             " still improved when it stopped (not converged)");
  }

  // The best so far with this knob at each of its other values, nearest first.
  std::vector<TuneKnobs> valuesOutward(const TuneKnob& kn) const {
    const std::int64_t cur = kn.get(lead_.knobs);
    std::vector<std::int64_t> vals = kn.values;
    const auto here = std::lower_bound(vals.begin(), vals.end(), cur) - vals.begin();
    std::stable_sort(vals.begin(), vals.end(), [&](std::int64_t a, std::int64_t b) {
      auto idx = [&](std::int64_t v) {
        return std::abs(static_cast<long>(std::find(kn.values.begin(), kn.values.end(), v) -
                                          kn.values.begin() - here));
      };
      return idx(a) < idx(b);
    });
    std::vector<TuneKnobs> cands;
    for (std::int64_t v : vals) {
      if (v == cur) continue;
      TuneKnobs k = lead_.knobs;
      kn.set(k, v);
      cands.push_back(k);
    }
    return cands;
  }

  // Seeded random moves of two knobs at once, from the best so far, a fixed number per
  // round so the draws do not depend on the thread count.
  void randomMoves() {
    const std::uint64_t seed = opt_.seed != 0 ? opt_.seed : given_.seed;
    Rng rng(seed ^ 0x7475'6e65ULL);
    int idle = 0;
    while (!stopped(TunePhase::Search) && idle < 64) {
      std::vector<TuneKnobs> cands;
      for (unsigned i = 0; i < kRandomRound; ++i) {
        TuneKnobs k = lead_.knobs;
        for (int m = 0; m < 2; ++m) {
          const TuneKnob& kn = *searched_[rng.next() % searched_.size()];
          kn.set(k, kn.values[rng.next() % kn.values.size()]);
        }
        cands.push_back(k);
      }
      const int before = out_.runs;
      runRound(cands, TunePhase::Search);
      idle = out_.runs == before ? idle + 1 : 0;  // every draw already tried or refused
    }
  }

  // Every searched knob's next value up and down from `at`.
  std::vector<TuneKnobs> neighbours(const TuneKnobs& at) const {
    std::vector<TuneKnobs> n;
    for (const TuneKnob* kn : searched_) {
      const auto i =
          std::find(kn->values.begin(), kn->values.end(), kn->get(at)) - kn->values.begin();
      for (const auto j : {i + 1, i - 1}) {
        if (i == static_cast<long>(kn->values.size()) || j < 0 ||
            j >= static_cast<long>(kn->values.size()))
          continue;
        TuneKnobs k = at;
        kn->set(k, kn->values[static_cast<std::size_t>(j)]);
        n.push_back(k);
      }
    }
    return n;
  }

  const TuneEval* measured(const TuneKnobs& k) const {
    if (k == lead_.knobs) return &lead_;
    if (k == out_.baseline.knobs && !search().standIn) return &out_.baseline;
    const auto ev = std::find_if(out_.evaluated.begin(), out_.evaluated.end(),
                                 [&](const TuneEval& e) { return e.knobs == k; });
    return ev == out_.evaluated.end() ? nullptr : &*ev;
  }

  // Neighbour checks: every knob's next value up and down from the best is run (or refused
  // by its rule), so each knob's binding constraint is measured, not guessed; a better
  // neighbour becomes the best and its neighbours are checked in turn, until the best stops
  // moving or kNeighbourRounds rounds.
  void checkNeighbours() {
    bool stillMoving = false;
    for (int round = 0; round < kNeighbourRounds && !stopped(TunePhase::Neighbours); ++round) {
      const std::size_t before = out_.evaluated.size();
      stillMoving = runRound(neighbours(lead_.knobs), TunePhase::Neighbours);
      out_.neighbourChecks += static_cast<int>(out_.evaluated.size() - before);
      if (!stillMoving) break;
    }
    if (stillMoving)
      out_.notDone.push_back("neighbour checks: the best still moved in the last round");
  }

  // When the full shape picked another of the stand-in's leaders than its best, that
  // answer's neighbours are run at the stand-in too, so its "why" is measured.
  void explainAnswer() {
    if (out_.best.knobs == lead_.knobs || stopped(TunePhase::Explain)) return;
    const std::size_t before = out_.evaluated.size();
    const TuneEval lead = lead_;
    runRound(neighbours(out_.best.knobs), TunePhase::Explain);
    lead_ = lead;  // explaining, not searching: the stand-in's best stays
    out_.neighbourChecks += static_cast<int>(out_.evaluated.size() - before);
  }

  void noteUnrunNeighbours() {
    int unrun = 0, all = 0;
    for (const TuneKnobs& k : neighbours(out_.best.knobs)) {
      if (!tuneConstraint(withKnobs(full_.sc, k, opt_.objective)).empty()) continue;
      ++all;
      if (measured(k) == nullptr) ++unrun;
    }
    if (unrun > 0)
      out_.notDone.push_back("neighbour checks: " + std::to_string(unrun) + " of " +
                             std::to_string(all) + " runnable neighbours of the best not run");
  }

  // Successive halving: the stand-in's best few, run again at the full shape; the answer is
  // the best of those and the scenario's own. The few are the best of distinct ring tilings
  // (chunk, queue, cores per role), each with its best combine knobs: the stand-in's leaders
  // otherwise differ only in a UB window or a batch size, while the tiling is what a shorter
  // run misranks most (on 4 x 8 x 4096 the stand-in ranked 16 forwarders before 12, which
  // is 26% faster at the full shape).
  void confirm() {
    std::vector<TuneJob> jobs;
    for (const TuneKnobs& k : unconfirmedLeaders(0)) {
      if (static_cast<int>(jobs.size()) == kConfirmAtFullShape) break;
      jobs.push_back({&full_, k, Design::Streaming});
    }
    const std::size_t wanted = jobs.size();
    runConfirmations(jobs, TunePhase::Confirm);
    if (out_.confirmed.size() < wanted)
      out_.notDone.push_back("confirmation: " + std::to_string(wanted - out_.confirmed.size()) +
                             " of the stand-in's " + std::to_string(wanted) +
                             " leaders not run at the full shape");
  }

  // Time and budget left after the explanation go to more of the stand-in's distinct
  // tilings, when their stand-in figures are within kFlatLeaders of its best: the stand-in
  // does not rank such near ties the way the full shape does (on 4 x 8 x 4096 tilings
  // within 8% at 512 tokens were 14% apart at 4096).
  void confirmFlatLeaders() {
    if (cancelled()) return;
    std::vector<TuneJob> jobs;
    for (const TuneKnobs& k : unconfirmedLeaders(kFlatLeaders))
      jobs.push_back({&full_, k, Design::Streaming});
    runConfirmations(jobs, TunePhase::Explain);
  }

  // The stand-in's best of each ring tiling (chunk, queue, cores per role) not yet run at
  // the full shape, best first; with `flat` > 0 only those within that fraction of the
  // stand-in's best figure.
  std::vector<TuneKnobs> unconfirmedLeaders(double flat) const {
    std::vector<const TuneEval*> leaders;
    for (const TuneEval& e : out_.evaluated)
      if (e.ok) leaders.push_back(&e);
    if (lead_.ok && std::none_of(leaders.begin(), leaders.end(),
                                 [&](const TuneEval* e) { return e->knobs == lead_.knobs; }))
      leaders.push_back(&lead_);
    std::stable_sort(leaders.begin(), leaders.end(), [&](const TuneEval* a, const TuneEval* b) {
      return tuneFigure(*a, opt_.objective) < tuneFigure(*b, opt_.objective);
    });
    auto tiling = [](const TuneKnobs& k) {
      return std::to_string(k.chunkBytes) + "/" + std::to_string(k.queueChunks) + "/" +
             std::to_string(k.senderCores) + "/" + std::to_string(k.forwarderCores) + "/" +
             std::to_string(k.receiverCores);
    };
    std::set<std::string> tilings;  // run at the full shape already
    for (const TuneEval& c : out_.confirmed) tilings.insert(tiling(c.knobs));
    if (out_.proposal) tilings.insert(tiling(out_.proposal->knobs));
    std::vector<TuneKnobs> out;
    for (const TuneEval* e : leaders) {
      if (flat > 0 && tuneFigure(*e, opt_.objective) >
                          (1 + flat) * tuneFigure(*leaders.front(), opt_.objective))
        break;
      if (e->knobs == out_.baseline.knobs) continue;  // already run at full shape
      if (out_.proposal && e->knobs == out_.proposal->knobs) continue;
      if (!tilings.insert(tiling(e->knobs)).second) continue;
      out.push_back(e->knobs);
    }
    return out;
  }

  // Runs confirmations within the budget; the answer is the best full-shape figure of the
  // scenario's own, the model's proposal and every confirmation.
  void runConfirmations(std::vector<TuneJob> jobs, TunePhase phase) {
    if (static_cast<int>(jobs.size()) > room(phase)) {
      jobs.resize(static_cast<std::size_t>(std::max(0, room(phase))));
      budgetCut_ = true;
    }
    if (!cancelled())
      for (auto& c : runJobs(jobs, phase))
        if (c) out_.confirmed.push_back(std::move(*c));
    out_.best = out_.baseline;
    if (out_.proposal && better(*out_.proposal, out_.best)) out_.best = *out_.proposal;
    for (const TuneEval& c : out_.confirmed)
      if (better(c, out_.best)) out_.best = c;
  }

  const Scenario& given_;
  const TuneOptions& opt_;
  TuneShape full_;
  std::unique_ptr<TuneShape> standIn_;
  std::vector<const TuneKnob*> searched_;
  std::unique_ptr<TuneJobRunner> jobs_;
  TuneResult out_;
  TuneEval lead_;  // the best so far at the search shape
  std::set<std::string> tried_;
  int confirmRuns_ = 0, neighbourRuns_ = 0;
  int placePerRank_ = 1;
  std::vector<TuneKnobs> seeds_;  // the role model's tilings (modelSeeds)
  bool budgetCut_ = false;
};

}  // namespace

TuneResult tuneStreaming(const Scenario& given, const TuneOptions& opt) {
  require(opt.budget >= 2 && opt.budget <= 10000, "--budget",
          "must be in [2, 10000] (the baseline and phased runs count)");
  require(opt.timeLimitSeconds >= 0, "--time-limit", "must not be negative");
  require(given.workload.kind == WorkloadKind::MoeLayer, "workload.kind",
          "tune searches the MoE layer's streaming design (got alltoall-matmul-rs)");
  // The scenario as given must be one `validate` accepts: the tuned one is written from it.
  checkScenario(given);
  require(!opt.resume || !opt.logPath.empty(), "--resume", "needs --log FILE to resume from");
  return TuneSearch(given, opt).run();
}

}  // namespace moe
