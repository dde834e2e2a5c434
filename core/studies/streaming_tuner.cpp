#include "core/studies/streaming_tuner.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/plan/dispatch_tiling.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"
#include "core/util/parallel_map.h"
#include "core/util/rng.h"

namespace moe {

TuneKnobs knobsOf(const Scenario& sc) {
  return TuneKnobs{sc.rings.chunkBytes,     sc.rings.queueChunks,    sc.rings.senderCores,
                   sc.rings.forwarderCores, sc.rings.receiverCores,  sc.combine.rdmaBatchBytes,
                   sc.combine.partialDtype, sc.combine.ubWindowRows, sc.combine.sumLocalExperts};
}

Scenario withKnobs(const Scenario& sc, const TuneKnobs& k) {
  Scenario s = sc;
  s.rings.chunkBytes = k.chunkBytes;
  s.rings.queueChunks = k.queueChunks;
  s.rings.senderCores = k.senderCores;
  s.rings.forwarderCores = k.forwarderCores;
  s.rings.receiverCores = k.receiverCores;
  s.combine.rdmaBatchBytes = k.rdmaBatchBytes;
  s.combine.partialDtype = k.partialDtype;
  s.combine.ubWindowRows = k.ubWindowRows;
  s.combine.sumLocalExperts = k.sumLocalExperts;
  return s;
}

namespace {

// One searched knob: its scenario path, the values tried (ascending) and how it reads and
// writes a TuneKnobs. Values are int64 (the dtype as 0 = fp32, 1 = bf16; a switch as 0 / 1).
struct Knob {
  const char* path;
  std::vector<std::int64_t> values;
  std::int64_t (*get)(const TuneKnobs&);
  void (*set)(TuneKnobs&, std::int64_t);
  std::string (*show)(std::int64_t);
};

std::string showInt(std::int64_t v) {
  return std::to_string(v);
}
std::string showBytes(std::int64_t v) {
  if (v == 0) return "0";
  if (v % 1024 == 0) return std::to_string(v / 1024) + " KiB";
  return std::to_string(v) + " B";
}
std::string showDtype(std::int64_t v) {
  return v == 0 ? "fp32" : "bf16";
}
std::string showSwitch(std::int64_t v) {
  return v == 0 ? "false" : "true";
}
std::string showWindow(std::int64_t v) {
  return v == 0 ? "0 (auto)" : std::to_string(v);
}

const std::vector<Knob>& knobs() {
  // Searched in this order: the combine's own knobs first (cheap to reason about), then the
  // core split, then the ring shape.
  static const std::vector<Knob> k = {
      {"combine.rdma_batch_bytes",
       {0, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20},
       [](const TuneKnobs& t) { return t.rdmaBatchBytes; },
       [](TuneKnobs& t, std::int64_t v) { t.rdmaBatchBytes = v; },
       showBytes},
      {"combine.partial_dtype",
       {0, 1},
       [](const TuneKnobs& t) { return std::int64_t{t.partialDtype == PartialDtype::Bf16}; },
       [](TuneKnobs& t, std::int64_t v) {
         t.partialDtype = v ? PartialDtype::Bf16 : PartialDtype::Fp32;
       },
       showDtype},
      {"combine.sum_local_experts",
       {0, 1},
       [](const TuneKnobs& t) { return std::int64_t{t.sumLocalExperts}; },
       [](TuneKnobs& t, std::int64_t v) { t.sumLocalExperts = v != 0; },
       showSwitch},
      {"rings.forwarder_cores",
       {1, 2, 4, 6, 8, 12, 16},
       [](const TuneKnobs& t) { return std::int64_t{t.forwarderCores}; },
       [](TuneKnobs& t, std::int64_t v) { t.forwarderCores = static_cast<int>(v); },
       showInt},
      {"rings.sender_cores",
       {2, 4, 6, 8, 12, 16},
       [](const TuneKnobs& t) { return std::int64_t{t.senderCores}; },
       [](TuneKnobs& t, std::int64_t v) { t.senderCores = static_cast<int>(v); },
       showInt},
      {"rings.receiver_cores",
       {2, 4, 6, 8, 12, 16},
       [](const TuneKnobs& t) { return std::int64_t{t.receiverCores}; },
       [](TuneKnobs& t, std::int64_t v) { t.receiverCores = static_cast<int>(v); },
       showInt},
      {"rings.queue_chunks",
       {2, 4, 8, 16, 32},
       [](const TuneKnobs& t) { return std::int64_t{t.queueChunks}; },
       [](TuneKnobs& t, std::int64_t v) { t.queueChunks = static_cast<int>(v); },
       showInt},
      {"rings.chunk_bytes",
       {16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10},
       [](const TuneKnobs& t) { return t.chunkBytes; },
       [](TuneKnobs& t, std::int64_t v) { t.chunkBytes = v; },
       showBytes},
      {"combine.ub_window_rows",
       {0, 1, 2, 4, 8},
       [](const TuneKnobs& t) { return std::int64_t{t.ubWindowRows}; },
       [](TuneKnobs& t, std::int64_t v) { t.ubWindowRows = static_cast<int>(v); },
       showWindow},
  };
  return k;
}

std::string knobKey(const TuneKnobs& k) {
  char b[160];
  std::snprintf(b, sizeof b, "%lld/%d/%d/%d/%d/%lld/%d/%d/%d", static_cast<long long>(k.chunkBytes),
                k.queueChunks, k.senderCores, k.forwarderCores, k.receiverCores,
                static_cast<long long>(k.rdmaBatchBytes), static_cast<int>(k.partialDtype),
                k.ubWindowRows, int{k.sumLocalExperts});
  return b;
}

// Runs one design of a scenario on the engine (payload none) and reads its figures.
TuneEval evaluate(const Scenario& sc, const TuneKnobs& k, Design design,
                  const std::shared_ptr<const std::vector<RankGating>>& gating) {
  TuneEval e;
  e.knobs = k;
  try {
    const ResolvedScenario rs = ResolvedScenario::resolve(withKnobs(sc, k), gating);
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

bool better(const TuneEval& a, const TuneEval& b) {
  return a.ok && (!b.ok || a.totalUs < b.totalUs);
}

}  // namespace

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

namespace {

// One search, step by step: the baseline and phased side by side, coordinate descent per
// knob, seeded random moves of two knobs at once, neighbour checks around the best, then
// why each knob stops where it does.
class TuneSearch {
 public:
  TuneSearch(const Scenario& given, const TuneOptions& opt)
      : given_(given), opt_(opt), budget_(opt.budget), total_(opt.budget + 2) {
    base_ = given;
    base_.payload = PayloadMode::None;  // timing only: the same protocol, no tensor bytes
    // The scenario as given must itself be runnable: it is the baseline.
    if (const std::string why = tuneConstraint(base_); !why.empty())
      throw InputError("rings", "the scenario's own tiling cannot run: " + why);
    gating_ = ResolvedScenario::resolve(base_).gating();
  }

  TuneResult run() {
    runBaselineAndPhased();
    descend();
    randomMoves();
    const bool stillMoving = checkNeighbours();
    out_.tuned = withKnobs(given_, out_.best.knobs);
    for (const Knob& kn : knobs()) out_.bindings.push_back(binding(kn, stillMoving));
    return out_;
  }

 private:
  bool cancelled() const { return opt_.cancel != nullptr && opt_.cancel->load(); }
  void progress(int n) {
    done_ += n;
    if (opt_.onProgress) opt_.onProgress(done_, total_);
  }

  // Baseline and phased, side by side (two jobs).
  void runBaselineAndPhased() {
    auto r = parallelMap<TuneEval>(2,
                                   [&](std::size_t i) {
                                     return evaluate(base_, knobsOf(base_),
                                                     i == 0 ? Design::Streaming : Design::Phased,
                                                     gating_);
                                   },
                                   {opt_.threads, {}, nullptr});
    out_.baseline = *r[0];
    out_.phased = *r[1];
    progress(2);
    tried_.insert(knobKey(out_.baseline.knobs));
    out_.best = out_.baseline;
  }

  // Runs a round of candidates in parallel; keeps the best (ties: the earlier candidate).
  bool runRound(const std::vector<TuneKnobs>& cands) {
    std::vector<TuneKnobs> runnable;
    for (const TuneKnobs& k : cands) {
      if (static_cast<int>(runnable.size()) >= budget_) break;
      if (!tried_.insert(knobKey(k)).second) continue;
      if (!tuneConstraint(withKnobs(base_, k)).empty()) {
        ++out_.rejected;
        continue;
      }
      runnable.push_back(k);
    }
    if (runnable.empty() || cancelled()) return false;
    auto results = parallelMap<TuneEval>(
        runnable.size(),
        [&](std::size_t i) { return evaluate(base_, runnable[i], Design::Streaming, gating_); },
        {opt_.threads,
         // From a worker, under parallelMap's lock; `done_` only changes between rounds.
         [&](std::size_t finished, std::size_t) {
           if (opt_.onProgress) opt_.onProgress(done_ + static_cast<int>(finished), total_);
         },
         opt_.cancel});
    bool improved = false;
    for (auto& r : results) {
      if (!r) continue;
      progress(1);
      --budget_;
      out_.evaluated.push_back(*r);
      if (better(*r, out_.best)) {
        out_.best = *r;
        improved = true;
      }
    }
    return improved;
  }

  // Coordinate descent: per knob, every value (nearest to the current one first).
  void descend() {
    bool improvedInPass = true;
    while (budget_ > 0 && improvedInPass && !cancelled()) {
      improvedInPass = false;
      for (const Knob& kn : knobs()) {
        if (budget_ <= 0 || cancelled()) break;
        improvedInPass = runRound(valuesOutward(kn)) || improvedInPass;
      }
    }
  }

  // The best so far with this knob at each of its other values, nearest first.
  std::vector<TuneKnobs> valuesOutward(const Knob& kn) const {
    const std::int64_t cur = kn.get(out_.best.knobs);
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
      TuneKnobs k = out_.best.knobs;
      kn.set(k, v);
      cands.push_back(k);
    }
    return cands;
  }

  // Seeded random moves of two knobs at once, from the best so far.
  void randomMoves() {
    const std::uint64_t seed = opt_.seed != 0 ? opt_.seed : given_.seed;
    Rng rng(seed ^ 0x7475'6e65ULL);
    int idle = 0;
    while (budget_ > 0 && !cancelled() && idle < 64) {
      std::vector<TuneKnobs> cands;
      const unsigned round = std::max(1u, resolveThreadCount(opt_.threads, 64));
      for (unsigned i = 0; i < round; ++i) {
        TuneKnobs k = out_.best.knobs;
        for (int m = 0; m < 2; ++m) {
          const Knob& kn = knobs()[rng.next() % knobs().size()];
          kn.set(k, kn.values[rng.next() % kn.values.size()]);
        }
        cands.push_back(k);
      }
      const int before = budget_;
      runRound(cands);
      idle = budget_ == before ? idle + 1 : 0;  // every draw already tried or refused
    }
  }

  // Every knob's next value up and down from `at`.
  static std::vector<TuneKnobs> neighbours(const TuneKnobs& at) {
    std::vector<TuneKnobs> n;
    for (const Knob& kn : knobs()) {
      const auto i = std::find(kn.values.begin(), kn.values.end(), kn.get(at)) - kn.values.begin();
      for (const auto j : {i + 1, i - 1}) {
        if (i == static_cast<long>(kn.values.size()) || j < 0 ||
            j >= static_cast<long>(kn.values.size()))
          continue;
        TuneKnobs k = at;
        kn.set(k, kn.values[static_cast<std::size_t>(j)]);
        n.push_back(k);
      }
    }
    return n;
  }

  // Neighbour checks: every knob's next value up and down from the best is run (or refused
  // by its rule), so each knob's binding constraint is measured, not guessed; a better
  // neighbour becomes the best and its neighbours are checked in turn, until the best stops
  // moving or kNeighbourRounds rounds. Returns whether the best still moved in the last.
  bool checkNeighbours() {
    constexpr int kNeighbourRounds = 8;
    bool stillMoving = false;
    for (int round = 0; round < kNeighbourRounds && !cancelled(); ++round) {
      budget_ = 1 << 20;  // neighbour checks are not part of the search budget
      const std::size_t before = out_.evaluated.size();
      stillMoving = runRound(neighbours(out_.best.knobs));
      out_.neighbourChecks += static_cast<int>(out_.evaluated.size() - before);
      if (!stillMoving) break;
    }
    return stillMoving;
  }

  // Why a knob stops where it does: its neighbours, refused (the rule) or measured.
  TuneBinding binding(const Knob& kn, bool stillMoving) const {
    TuneBinding b;
    b.knob = kn.path;
    const std::int64_t cur = kn.get(out_.best.knobs);
    b.value = kn.show(cur);
    const auto it = std::find(kn.values.begin(), kn.values.end(), cur);
    std::vector<std::int64_t> next;
    if (it == kn.values.end()) {
      next = {kn.values.front(), kn.values.back()};
    } else {
      if (it + 1 != kn.values.end()) next.push_back(*(it + 1));
      if (it != kn.values.begin()) next.push_back(*(it - 1));
    }
    for (std::int64_t v : next) {
      TuneKnobs k = out_.best.knobs;
      kn.set(k, v);
      b.why += (b.why.empty() ? "" : "; ") + kn.show(v) + ": " + neighbourVerdict(k, stillMoving);
    }
    if (b.why.empty()) b.why = "the only value searched";
    return b;
  }

  std::string neighbourVerdict(const TuneKnobs& k, bool stillMoving) const {
    if (const std::string why = tuneConstraint(withKnobs(base_, k)); !why.empty())
      return "limited by " + why;
    const auto ev = std::find_if(out_.evaluated.begin(), out_.evaluated.end(),
                                 [&](const TuneEval& e) { return e.knobs == k; });
    if (ev == out_.evaluated.end())
      return stillMoving ? "not run (the neighbour checks stopped while the best still moved)"
                         : "not run within the budget";
    if (!ev->ok) return "failed (" + ev->error.substr(0, 80) + ")";
    char num[96];
    std::snprintf(num, sizeof num, "%.1f us (%+.1f us), measured", ev->totalUs,
                  ev->totalUs - out_.best.totalUs);
    return num;
  }

  const Scenario& given_;
  const TuneOptions& opt_;
  Scenario base_;
  std::shared_ptr<const std::vector<RankGating>> gating_;
  TuneResult out_;
  std::set<std::string> tried_;
  int budget_;
  int done_ = 0;
  const int total_;
};

}  // namespace

TuneResult tuneStreaming(const Scenario& given, const TuneOptions& opt) {
  require(opt.budget >= 1 && opt.budget <= 10000, "--budget", "must be in [1, 10000]");
  require(given.workload.kind == WorkloadKind::MoeLayer, "workload.kind",
          "tune searches the MoE layer's streaming design (got alltoall-matmul-rs)");
  // The scenario as given must be one `validate` accepts: the tuned one is written from it.
  checkScenario(given);
  return TuneSearch(given, opt).run();
}

}  // namespace moe
