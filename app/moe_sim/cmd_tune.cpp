// `moe-sim tune [SCENARIO.json] [--budget N] [--time-limit D] [--stage S] [--log F [--resume]]
// [--keep-numerics] [--no-stand-in] [--seed S] [--threads T] [--out FILE]`: searches the
// streaming design's knobs on the engine (core/studies/streaming_tuner.h), prints the best
// configuration, its stage times beside the phased design's and the scenario's own, what
// bounded the search and what it left undone, why each knob stops where it does, and writes
// the tuned scenario as JSON.

#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/duration_arg.h"
#include "app/moe_sim/progress_line.h"
#include "app/moe_sim/scenario_out.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/streaming_tuner.h"
#include "core/util/error.h"
#include "core/util/output_file.h"

namespace {

constexpr int kMostRuns = 10000;

struct TuneCliOptions {
  std::string scenarioFile;
  int budget = 64;
  std::string timeLimit;
  std::string stage = "layer";
  std::string log;
  bool resume = false;
  bool keepNumerics = false;
  bool noStandIn = false;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  std::string out = "tuned.json";
};

std::string knobsLine(const moe::TuneKnobs& k) {
  char b[256];
  std::snprintf(b, sizeof b,
                "chunk %lld B, queue %d, cores %d/%d/%d (sender/forwarder/receiver), batch %lld B, "
                "partials %s, UB window %d%s, senders %s",
                static_cast<long long>(k.chunkBytes), k.queueChunks, k.senderCores,
                k.forwarderCores, k.receiverCores, static_cast<long long>(k.rdmaBatchBytes),
                moe::toString(k.partialDtype).c_str(), k.ubWindowRows,
                k.ubWindowRows == 0 ? " (auto)" : "",
                k.sumLocalExperts ? "sum each token's experts" : "send each expert's row");
  return b;
}

// "faster, 1.000 us vs 2.000 us (0.50x)" and, when the numerics differ, what differs.
std::string versusPhased(double tuned, double phased, const moe::TuneKnobs& k) {
  char line[160];
  std::snprintf(line, sizeof line, "%s, %.3f us vs %.3f us (%.2fx)",
                tuned <= phased ? "faster" : "slower", tuned, phased, tuned / phased);
  const std::string numerics = moe::numericsVsPhased(k);
  return std::string(line) + (numerics.empty() ? "" : " - " + numerics);
}

void printBounds(std::ostream& out, const moe::TuneResult& r, int budget,
                 const std::string& limit) {
  const int candidates = static_cast<int>(r.evaluated.size()) - r.neighbourChecks;
  out << "tune: objective " << moe::toString(r.objective) << "; " << r.runs
      << " engine runs of a budget of " << budget << (limit.empty() ? "" : ", time limit " + limit)
      << ": baseline and phased, " << candidates << " candidates, " << r.neighbourChecks
      << " neighbour checks of the best";
  if (r.standInTokens > 0)
    out << ", the stand-in's baseline, " << (r.proposal ? "the model's proposal and " : "")
        << r.confirmed.size() << " confirmations at full shape";
  out << "; " << r.rejected << " refused by a hard constraint before running; payload none\n";
  if (r.stoppedBy.empty())
    out << "bounds: the search ran its course within them\n";
  else
    out << "bounds: stopped by the " << r.stoppedBy
        << (r.notDone.empty() ? " (the random moves filled it; nothing else left undone)" : "")
        << "\n";
  for (const std::string& n : r.notDone) out << "  not done: " << n << "\n";
  if (!r.standInNote.empty()) out << "stand-in: " << r.standInNote << "\n";
}

void printStandIn(std::ostream& out, const moe::TuneResult& r) {
  if (r.standInTokens == 0) return;
  out << "stand-in: candidates ran at " << r.standInTokens << " tokens per rank (the scenario has "
      << r.baseline.tokensPerRank << "); confirmed at full shape:\n";
  char line[200];
  for (const moe::TuneEval& c : r.confirmed) {
    std::snprintf(line, sizeof line, "  %s: %.3f us at full shape%s\n", knobsLine(c.knobs).c_str(),
                  moe::tuneFigure(c, r.objective), c.ok ? "" : " (failed)");
    out << line;
  }
  if (r.confirmed.empty()) out << "  none (the scenario's own knobs are the answer)\n";
}

// `moe-sim tiling`'s proposal for the stage, always run at the full shape: the answer is
// never slower.
void printProposal(std::ostream& out, const moe::TuneResult& r) {
  if (!r.proposal) return;
  char line[240];
  std::snprintf(line, sizeof line, "model proposal (moe-sim tiling): %s: %.3f us at full shape%s\n",
                knobsLine(r.proposal->knobs).c_str(), moe::tuneFigure(*r.proposal, r.objective),
                r.proposal->ok ? "" : " (failed)");
  out << line;
}

void printTable(std::ostream& out, const moe::TuneResult& r) {
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %14s %18s %18s\n", "stage (us)", "phased",
                "streaming (given)", "streaming (tuned)");
  out << line;
  for (std::size_t s = 0; s < r.best.stageUs.size(); ++s) {
    const std::string& name = r.best.stageUs[s].first;
    auto find = [&](const moe::TuneEval& e) -> std::string {
      // The designs name their dispatch/combine stages differently: match by prefix.
      const std::string prefix = name.substr(0, name.find('-'));
      for (std::size_t i = 0; i < e.stageUs.size(); ++i)
        if (e.stageUs[i].first == name ||
            (i == s && e.stageUs[i].first.substr(0, e.stageUs[i].first.find('-')) == prefix)) {
          char v[32];
          std::snprintf(v, sizeof v, "%.3f", e.stageUs[i].second);
          return v;
        }
      return "-";
    };
    std::snprintf(line, sizeof line, "%-20s %14s %18s %18.3f\n", name.c_str(),
                  find(r.phased).c_str(), find(r.baseline).c_str(), r.best.stageUs[s].second);
    out << line;
  }
  std::snprintf(line, sizeof line, "%-20s %14.3f %18.3f %18.3f\n", "total", r.phased.totalUs,
                r.baseline.totalUs, r.best.totalUs);
  out << line;
  std::snprintf(line, sizeof line, "%-20s %14lld %18lld %18lld\n", "combine RDMA posts",
                static_cast<long long>(r.phased.combinePosts),
                static_cast<long long>(r.baseline.combinePosts),
                static_cast<long long>(r.best.combinePosts));
  out << line;
  std::snprintf(line, sizeof line, "%-20s %14.2f %18.2f %18.2f\n", "combine RDMA MiB",
                r.phased.combineRdmaBytes / (1 << 20), r.baseline.combineRdmaBytes / (1 << 20),
                r.best.combineRdmaBytes / (1 << 20));
  out << line;
  out << "(every figure in this table is at the full shape";
  if (!r.best.ok) out << "; the tuned run failed: " << r.best.error.substr(0, 120);
  out << ")\n";
  for (const auto& [side, e] : {std::pair{"given", &r.baseline}, std::pair{"tuned", &r.best}})
    if (const std::string n = moe::numericsVsPhased(e->knobs); !n.empty())
      out << "numerics: streaming (" << side << ") vs phased: " << n << "\n";
}

void printTune(std::ostream& out, const moe::TuneResult& r, int budget, const std::string& limit) {
  printBounds(out, r, budget, limit);
  out << "scenario's own: " << knobsLine(r.baseline.knobs) << "\n";
  out << "best found:     " << knobsLine(r.best.knobs) << "\n";
  printStandIn(out, r);
  printProposal(out, r);
  out << "\n";
  printTable(out, r);
  out << "\nstreaming combine (tuned) vs phased: "
      << versusPhased(r.best.combineUs, r.phased.combineUs, r.best.knobs) << "\n";
  if (r.objective != moe::TuneObjective::Combine)
    out << "streaming " << moe::toString(r.objective) << " (tuned, the objective) vs phased: "
        << versusPhased(moe::tuneFigure(r.best, r.objective),
                        moe::tuneFigure(r.phased, r.objective), r.best.knobs)
        << "\n";
  out << "\nwhy each knob stops there (its neighbours";
  if (r.standInTokens > 0)
    out << "; figures of the stand-in at " << r.standInTokens << " tokens per rank";
  out << "):\n";
  for (const auto& b : r.bindings)
    out << "  " << b.knob << " = " << b.value << ": " << b.why << "\n";
}

moe::TuneObjective objectiveOf(const std::string& stage) {
  if (stage == "dispatch") return moe::TuneObjective::Dispatch;
  if (stage == "combine") return moe::TuneObjective::Combine;
  moe::require(stage == "layer", "--stage",
               "must be dispatch, combine or layer, got '" + stage + "'");
  return moe::TuneObjective::Layer;
}

// The flags whose count matters: --budget's default depends on --time-limit, and an
// explicit --out is checked even when empty.
struct TuneFlags {
  CLI::Option* budget = nullptr;
  CLI::Option* out = nullptr;
};

TuneFlags addTuneOptions(CLI::App* sub, TuneCliOptions& opt) {
  TuneFlags flags;
  sub->add_option("scenario", opt.scenarioFile, "Scenario JSON file (default: the built-in)")
      ->check(moesim::nonEmptyPath());
  flags.budget = sub->add_option("--budget", opt.budget,
                                 "Engine runs in all: baseline, phased, candidates, neighbour "
                                 "checks, confirmations (default 64; with --time-limit alone, "
                                 "10000: the time is the bound)");
  sub->add_option("--time-limit", opt.timeLimit,
                  "Bound the whole search (90s, 10m, 1h); no run starts that would end past it");
  sub->add_option("--stage", opt.stage,
                  "What to minimise: dispatch, combine or layer (default layer)");
  sub->add_option("--log", opt.log, "Append each completed run to FILE as one JSON line");
  sub->add_flag("--resume", opt.resume,
                "Continue the tune in --log FILE: its runs are read, not run again");
  sub->add_flag("--keep-numerics", opt.keepNumerics,
                "Keep combine.partial_dtype and combine.sum_local_experts as given");
  sub->add_flag("--no-stand-in", opt.noStandIn,
                "Run every candidate at the full shape (default: at 1024+ tokens per rank, on a "
                "stand-in with an eighth of the tokens, the best 3 confirmed at full shape)");
  sub->add_option("--seed", opt.seed, "Seed of the random moves (default: the scenario's)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--threads", opt.threads, "Worker threads (default: the machine's cores)");
  flags.out = sub->add_option("--out", opt.out, "Tuned scenario JSON (default tuned.json)");
  return flags;
}

// The tuner's options from the flags, checked.
moe::TuneOptions tuneOptionsFrom(TuneCliOptions& opt, bool budgetGiven) {
  moe::require(opt.budget >= 2 && opt.budget <= kMostRuns, "--budget",
               "must be in [2, 10000] (the baseline and phased runs count), got " +
                   std::to_string(opt.budget));
  moe::require(opt.threads <= 256, "--threads", "must be in [0, 256]");
  moe::require(!opt.resume || !opt.log.empty(), "--resume", "needs --log FILE to resume from");
  moe::require(opt.log.empty() || opt.log != opt.out, "--log", "must not be the --out file");
  moe::TuneOptions to;
  to.objective = objectiveOf(opt.stage);
  if (!opt.timeLimit.empty()) {
    to.timeLimitSeconds = moesim::parseDurationSeconds(opt.timeLimit, "--time-limit");
    if (!budgetGiven) opt.budget = kMostRuns;  // the time limit is the bound
  }
  to.budget = opt.budget;
  to.seed = opt.seed;
  to.threads = opt.threads;
  to.keepNumerics = opt.keepNumerics;
  to.standIn = !opt.noStandIn;
  to.logPath = opt.log;
  to.resume = opt.resume;
  return to;
}

// Progress on stderr only when it is a terminal (captured output stays the report);
// called from worker threads one at a time.
std::function<void(int, int)> progressPrinter(double limit) {
  const bool tty = moe::ProgressLine::wanted();
  const auto started = std::chrono::steady_clock::now();
  return [tty, started, limit](int done, int total) {
    if (!tty) return;
    std::cerr << "\rtune: " << done << "/" << total << " runs";
    if (limit > 0) {
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::cerr << ", " << static_cast<long>(s) << " s of " << static_cast<long>(limit) << " s";
    }
    std::cerr << std::flush;
  };
}

const moesim::RegisterCommand kTune([](CLI::App& app, int& exitCode) {
  auto opt = std::make_shared<TuneCliOptions>();
  auto* sub = app.add_subcommand(
      "tune",
      "Search the streaming design's tiling (chunk, queue, cores per role, RDMA batch, partial "
      "dtype, UB window) on the engine and write the tuned scenario");
  const TuneFlags flags = addTuneOptions(sub, *opt);
  sub->callback([opt, flags, &exitCode] {
    moe::checkOutputPaths({{"--out", opt->out, flags.out->count() > 0 || !opt->out.empty()}},
                          {opt->scenarioFile});
    moe::TuneOptions to = tuneOptionsFrom(*opt, flags.budget->count() > 0);
    const moe::Scenario sc = opt->scenarioFile.empty() ? moe::defaultScenario()
                                                       : moe::loadScenarioFile(opt->scenarioFile);
    to.onProgress = progressPrinter(to.timeLimitSeconds);
    const moe::TuneResult r = moe::tuneStreaming(sc, to);
    if (moe::ProgressLine::wanted()) std::cerr << "\r\033[K" << std::flush;
    if (r.fromLog > 0)
      std::cerr << "tune: " << r.fromLog << " of " << r.runs << " runs read from " << opt->log
                << "\n";
    printTune(std::cout, r, opt->budget, opt->timeLimit);
    moesim::writeScenarioFile(r.tuned, opt->out, "--out");
    std::cout << "wrote " << opt->out << "\n";
    exitCode = r.best.ok ? 0 : 1;
  });
});

}  // namespace
