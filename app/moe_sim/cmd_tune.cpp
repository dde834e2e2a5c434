// `moe-sim tune [SCENARIO.json] [--budget N] [--seed S] [--threads T] [--out FILE]`: searches
// the streaming design's knobs on the engine (core/studies/streaming_tuner.h), prints the
// best configuration, its stage times beside the phased design's and the scenario's own,
// why each knob stops where it does, and writes the tuned scenario as JSON.

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/progress_line.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/streaming_tuner.h"
#include "core/util/error.h"
#include "core/util/output_file.h"

namespace {

struct TuneCliOptions {
  std::string scenarioFile;
  int budget = 48;
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

void printTune(std::ostream& out, const moe::TuneResult& r, int budget) {
  char line[256];
  out << "tune: " << r.evaluated.size() - r.neighbourChecks << " candidates run (budget " << budget
      << ") + " << r.neighbourChecks << " neighbour checks of the best, " << r.rejected
      << " refused by a hard constraint before running; payload none\n";
  out << "scenario's own: " << knobsLine(r.baseline.knobs) << "\n";
  out << "best found:     " << knobsLine(r.best.knobs) << "\n\n";
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
  out << "\nstreaming combine (tuned) vs phased: "
      << (r.best.combineUs <= r.phased.combineUs ? "faster" : "slower") << ", ";
  std::snprintf(line, sizeof line, "%.3f us vs %.3f us (%.2fx)\n", r.best.combineUs,
                r.phased.combineUs, r.best.combineUs / r.phased.combineUs);
  out << line;
  out << "\nwhy each knob stops there (its neighbours):\n";
  for (const auto& b : r.bindings)
    out << "  " << b.knob << " = " << b.value << ": " << b.why << "\n";
}

// A scenario file's relative trace path is read from the file's own directory; the loaded
// path is already resolved (against the input scenario's directory), so the tuned file gets
// it relative to where it is written, and still names the same trace.
std::string tracePathFrom(const std::string& trace, const std::string& outFile) {
  namespace fs = std::filesystem;
  if (trace.empty()) return trace;
  const fs::path absTrace = fs::absolute(trace).lexically_normal();
  const fs::path outDir = fs::absolute(outFile).lexically_normal().parent_path();
  const fs::path rel = absTrace.lexically_relative(outDir);
  return rel.empty() ? absTrace.string() : rel.string();
}

const moesim::RegisterCommand kTune([](CLI::App& app, int& exitCode) {
  auto opt = std::make_shared<TuneCliOptions>();
  auto* sub = app.add_subcommand(
      "tune",
      "Search the streaming design's tiling (chunk, queue, cores per role, RDMA batch, partial "
      "dtype, UB window) on the engine and write the tuned scenario");
  sub->add_option("scenario", opt->scenarioFile, "Scenario JSON file (default: the built-in)")
      ->check(moesim::nonEmptyPath());
  sub->add_option("--budget", opt->budget,
                  "Search runs (default 48; the best's neighbour checks come on top)");
  sub->add_option("--seed", opt->seed, "Seed of the random moves (default: the scenario's)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--threads", opt->threads, "Worker threads (default: the machine's cores)");
  auto* outOpt = sub->add_option("--out", opt->out, "Tuned scenario JSON (default tuned.json)");
  sub->callback([opt, outOpt, &exitCode] {
    moe::checkOutputPaths({{"--out", opt->out, outOpt->count() > 0 || !opt->out.empty()}},
                          {opt->scenarioFile});
    moe::require(opt->budget >= 1 && opt->budget <= 10000, "--budget",
                 "must be in [1, 10000], got " + std::to_string(opt->budget));
    moe::require(opt->threads <= 256, "--threads", "must be in [0, 256]");
    const moe::Scenario sc = opt->scenarioFile.empty() ? moe::defaultScenario()
                                                       : moe::loadScenarioFile(opt->scenarioFile);
    moe::TuneOptions to;
    to.budget = opt->budget;
    to.seed = opt->seed;
    to.threads = opt->threads;
    // Progress on stderr only when it is a terminal (captured output stays the report).
    const bool tty = moe::ProgressLine::wanted();
    to.onProgress = [tty](int done, int total) {
      if (tty) std::cerr << "\rtune: " << done << "/" << total << " runs" << std::flush;
    };
    const moe::TuneResult r = moe::tuneStreaming(sc, to);
    if (tty) std::cerr << "\r\033[K" << std::flush;
    printTune(std::cout, r, opt->budget);
    moe::Scenario tuned = r.tuned;
    tuned.routing.traceFile = tracePathFrom(tuned.routing.traceFile, opt->out);
    moe::writeFileAtomically(opt->out, "--out", [&](std::ostream& o) {
      o << moe::scenarioToJson(tuned).dump(2) << "\n";
    });
    std::cout << "wrote " << opt->out << "\n";
    exitCode = r.best.ok ? 0 : 1;
  });
});

}  // namespace
