// `moe-sim fidelity [--mode normal|low-latency|all] [--tokens N] [--min-ep N] [--max-ep N]
// [--threads N] [--write-scenarios DIR]`: DeepEP's published benchmark shapes on the
// h800-nvswitch profile (payload none), each figure computed as DeepEP's tests compute it,
// next to the published value (core/studies/fidelity.h, docs/FIDELITY.md). The intranode
// EP 8 normal-mode row is the calibration; every other row is a prediction.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/progress_line.h"
#include "core/run/resolved_scenario.h"
#include "core/scenario/scenario_json.h"
#include "core/studies/fidelity.h"
#include "core/util/error.h"
#include "core/util/output_file.h"
#include "core/util/parallel_map.h"

namespace {

struct FidelityOptions {
  std::string mode = "all";
  int tokens = 4096;
  int standIn = 512;
  unsigned threads = 2;
  // The largest EP run, in either mode (all of them by default; a smaller one saves time).
  int maxEp = 256;
  // The smallest EP run (8, all of them, by default; a larger one finishes a table piecewise).
  int minEp = 8;
  std::string target = "h800";
  std::string csv;             // one row per (target, mode, ep, stage)
  std::string writeScenarios;  // a directory: write the shapes' scenarios there, run nothing
};

// Why `moe-sim validate` would refuse a shape's scenario ("" when it accepts it): the same
// two checks, the per-field rules and checkScenario.
std::string whyInvalid(const moe::Scenario& sc) {
  try {
    moe::validateScenario(sc);
    moe::checkScenario(sc);
  } catch (const moe::InputError& e) {
    return e.what();
  }
  return "";
}

// Writes each shape's scenario as DIR/<name>.json, so a shape can be opened in the workbench,
// run with `moe-sim run` or used as a sweep's base. Only scenarios `validate` accepts are
// written: a normal-mode shape refused at --tokens is written at the stand-in token count (as
// the run substitutes it, and said so); any other refusal writes nothing and exits 2.
void writeScenarios(std::vector<moe::FidelityCase> cases, const std::string& dir, int tokens,
                    int standIn) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw moe::InputError("--write-scenarios", "'" + dir + "' is not an existing directory");
  for (auto& c : cases) {
    std::string why = whyInvalid(c.scenario);
    if (!why.empty() && c.mode == moe::FidelityMode::Normal &&
        why.starts_with("model.tokens_per_rank") && standIn > 0 && standIn != tokens) {
      c.scenario.model.tokensPerRank = standIn;
      if (whyInvalid(c.scenario).empty()) {
        std::cout << "note: " << c.scenario.name << " is not possible at " << tokens
                  << " tokens per rank (" << why << "); written at " << standIn
                  << " tokens per rank instead (a stand-in, not DeepEP's shape)\n";
        why.clear();
      }
    }
    if (!why.empty())
      throw moe::InputError(
          "--write-scenarios",
          c.scenario.name + " would not be a valid scenario (" + why + "); nothing written");
  }
  for (const auto& c : cases) {
    const std::string path = (fs::path(dir) / (c.scenario.name + ".json")).string();
    moe::writeFileAtomically(path, "--write-scenarios", [&](std::ostream& o) {
      o << moe::scenarioToJson(c.scenario).dump(2) << "\n";
    });
    std::cout << "wrote " << path << "\n";
  }
}

std::string pct(double got, double want) {
  if (want <= 0 || got <= 0) return "    -";
  char b[32];
  std::snprintf(b, sizeof b, "%+5.0f%%", 100.0 * (got - want) / want);
  return b;
}

void printNormal(const std::vector<moe::FidelityResult>& rows) {
  std::printf(
      "normal mode (hierarchical streaming design, FP8 dispatch, BF16 combine, 256 experts, "
      "top-8, H 7168)\n");
  std::printf("%-4s %-7s %-6s | %-11s %9s %9s %7s | %-11s %9s %9s %7s | %s\n", "EP", "servers",
              "tokens", "dispatch us", "GB/s", "DeepEP", "error", "combine us", "GB/s", "DeepEP",
              "error", "role");
  for (const auto& r : rows) {
    const auto& s = r.c.scenario;
    const char* role = r.c.calibration ? "calibration" : "prediction";
    if (!r.notRun.empty()) {
      std::printf("%-4d %-7d %-6d | not run: %s\n", r.c.ep, s.cluster.servers,
                  s.model.tokensPerRank, r.notRun.c_str());
      continue;
    }
    std::printf("%-4d %-7d %-6d | %11.1f %9.1f %9.0f %7s | %11.1f %9.1f %9.0f %7s | %s (%s)\n",
                r.c.ep, s.cluster.servers, s.model.tokensPerRank, r.dispatchUs, r.dispatchGBps(),
                r.c.published.dispatchGBps,
                pct(r.dispatchGBps(), r.c.published.dispatchGBps).c_str(), r.combineUs,
                r.combineGBps(), r.c.published.combineGBps,
                pct(r.combineGBps(), r.c.published.combineGBps).c_str(), role, r.bytes.link);
  }
}

void printLowLatency(const std::vector<moe::FidelityResult>& rows) {
  std::printf(
      "low-latency mode (flat design, FP8 dispatch, BF16 combine, 128 tokens, 256 experts, "
      "top-8, H 7168)\n");
  std::printf("%-4s %-7s | %-11s %6s %7s %9s %6s %7s | %-11s %6s %7s %9s %6s %7s | %s\n", "EP",
              "servers", "dispatch us", "DeepEP", "error", "RDMA GB/s", "DeepEP", "error",
              "combine us", "DeepEP", "error", "RDMA GB/s", "DeepEP", "error", "role");
  for (const auto& r : rows) {
    const auto& s = r.c.scenario;
    if (!r.notRun.empty()) {
      std::printf("%-4d %-7d | not run: %s\n", r.c.ep, s.cluster.servers, r.notRun.c_str());
      continue;
    }
    const auto& p = r.c.published;
    std::printf(
        "%-4d %-7d | %11.1f %6.0f %7s %9.1f %6.0f %7s | %11.1f %6.0f %7s %9.1f %6.0f %7s | "
        "prediction%s\n",
        r.c.ep, s.cluster.servers, r.dispatchUs, p.dispatchUs,
        pct(r.dispatchUs, p.dispatchUs).c_str(), r.dispatchGBps(), p.dispatchGBps,
        pct(r.dispatchGBps(), p.dispatchGBps).c_str(), r.combineUs, p.combineUs,
        pct(r.combineUs, p.combineUs).c_str(), r.combineGBps(), p.combineGBps,
        pct(r.combineGBps(), p.combineGBps).c_str(),
        s.bandwidthUpdateNs > 0
            ? (" (bandwidth solved every " + std::to_string(s.bandwidthUpdateNs) + " ns)").c_str()
            : "");
  }
}

// The A3 target: predictions only (the measurements are held out; docs/FIDELITY.md).
void printPredictions(const std::vector<moe::FidelityResult>& rows, const char* title) {
  std::printf("%s\n", title);
  std::printf("%-4s %-6s | %11s %9s | %11s %9s | %s\n", "EP", "tokens", "dispatch us", "GB/s",
              "combine us", "GB/s", "link");
  for (const auto& r : rows) {
    const auto& s = r.c.scenario;
    if (!r.notRun.empty()) {
      std::printf("%-4d %-6d | not run: %s\n", r.c.ep, s.model.tokensPerRank, r.notRun.c_str());
      continue;
    }
    std::printf("%-4d %-6d | %11.1f %9.1f | %11.1f %9.1f | %s\n", r.c.ep, s.model.tokensPerRank,
                r.dispatchUs, r.dispatchGBps(), r.combineUs, r.combineGBps(), r.bytes.link);
  }
}

// target,mode,ep,stage,time_us,gbps: one row per shape that ran and stage.
void writeCsv(const std::string& path, moe::FidelityTarget target,
              const std::vector<moe::FidelityResult>& results) {
  moe::writeFileAtomically(path, "--csv", [&](std::ostream& o) {
    o << "target,mode,ep,stage,time_us,gbps\n";
    for (const auto& r : results) {
      if (!r.notRun.empty()) continue;
      const char* mode = r.c.mode == moe::FidelityMode::Normal ? "normal" : "low-latency";
      char line[256];
      for (const bool dispatch : {true, false}) {
        std::snprintf(line, sizeof line, "%s,%s,%d,%s,%.3f,%.3f\n",
                      std::string(moe::fidelityTargetName(target)).c_str(), mode, r.c.ep,
                      dispatch ? "dispatch" : "combine", dispatch ? r.dispatchUs : r.combineUs,
                      dispatch ? r.dispatchGBps() : r.combineGBps());
        o << line;
      }
    }
  });
}

// The shapes of --mode; those outside [--min-ep, --max-ep] are set aside as skipped.
std::vector<moe::FidelityCase> chooseCases(const FidelityOptions& opt,
                                           std::vector<moe::FidelityCase> cases,
                                           std::vector<moe::FidelityResult>* skipped) {
  std::vector<moe::FidelityCase> chosen;
  for (auto& c : cases) {
    const bool normal = c.mode == moe::FidelityMode::Normal;
    if (opt.mode != "all" && normal != (opt.mode == "normal")) continue;
    if (skipped && (c.ep > opt.maxEp || c.ep < opt.minEp)) {
      moe::FidelityResult r;
      r.c = c;
      r.notRun =
          c.ep > opt.maxEp
              ? "skipped: EP " + std::to_string(c.ep) + " > --max-ep " + std::to_string(opt.maxEp) +
                    " (engine time, see docs/FIDELITY.md)"
              : "skipped: EP " + std::to_string(c.ep) + " < --min-ep " + std::to_string(opt.minEp);
      skipped->push_back(std::move(r));
      continue;
    }
    chosen.push_back(std::move(c));
  }
  return chosen;
}

// "fidelity: normal EP 16 (4096 tokens): dispatch 1449.0 us, combine 3561.0 us" on stderr.
void logShapeDone(const moe::FidelityResult& r) {
  const bool normal = r.c.mode == moe::FidelityMode::Normal;
  std::cerr << "fidelity: " << (normal ? "normal" : "low-latency") << " EP " << r.c.ep << " ("
            << r.c.scenario.model.tokensPerRank << " tokens): ";
  if (!r.notRun.empty()) {
    std::cerr << "not run: " << r.notRun << "\n";
    return;
  }
  char figures[96];
  std::snprintf(figures, sizeof figures, "dispatch %.1f us, combine %.1f us", r.dispatchUs,
                r.combineUs);
  std::cerr << figures << "\n";
}

// A shape's relative cost, to start the longest shapes first. Events grow with the tokens
// every rank sends; in the flat design each transfer also shares its NIC with one flow per
// peer, so each bandwidth solve grows with EP too. (Measured on the h800 shapes: EP 256 low
// latency is the longest, then normal EP 64 and low latency EP 128, about half as long.)
double estimatedWork(const moe::FidelityCase& c) {
  const double tokens = c.scenario.model.tokensPerRank;
  return tokens * c.ep * (c.design == moe::Design::Flat ? c.ep / 8.0 : 1.0);
}

// Runs the shapes `threads` at a time, the longest first (by estimatedWork): a long shape
// picked up last would leave the other threads idle while it runs. Results in the shapes'
// order.
std::vector<moe::FidelityResult> runAll(const std::vector<moe::FidelityCase>& list,
                                        unsigned threads) {
  moe::ParallelMapOptions pm;
  pm.threads = threads;
  // A redrawn line only on a terminal: in a log, "\r" lines pile up as one garbled line.
  const bool tty = moe::ProgressLine::wanted();
  if (tty)
    pm.onDone = [](std::size_t done, std::size_t total) {
      std::cerr << "\rfidelity: " << done << " of " << total << " shapes" << std::flush;
    };
  std::vector<std::size_t> order(list.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return estimatedWork(list[a]) > estimatedWork(list[b]);
  });
  // In a log, one line per finished shape instead, with its prediction: an A3 run of every
  // shape takes hours (docs/FIDELITY.md), and the table on stdout comes only at the end.
  std::mutex logMutex;
  auto got = moe::parallelMap<moe::FidelityResult>(
      list.size(),
      [&](std::size_t k) {
        moe::FidelityResult r = moe::runFidelityCase(list[order[k]]);
        if (!tty) {
          std::lock_guard lock(logMutex);
          logShapeDone(r);
        }
        return r;
      },
      pm);
  if (tty) std::cerr << "\n";
  std::vector<moe::FidelityResult> out(list.size());
  for (std::size_t k = 0; k < order.size(); ++k) out[order[k]] = std::move(*got[k]);
  return out;
}

// Normal-mode shapes the engine refuses at --tokens run at the stand-in count instead, and
// stdout says so.
void runStandIns(const FidelityOptions& opt, std::vector<moe::FidelityResult>& results) {
  std::vector<moe::FidelityCase> retry;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].c.mode == moe::FidelityMode::Normal && !results[i].notRun.empty() &&
        results[i].notRun.starts_with("model.tokens_per_rank") && opt.standIn > 0 &&
        opt.standIn != opt.tokens) {
      std::cout << "note: normal mode at " << opt.tokens << " tokens per rank is not possible yet ("
                << results[i].notRun << "); EP " << results[i].c.ep << " runs at " << opt.standIn
                << " tokens per rank instead (a stand-in, not DeepEP's shape)\n";
      moe::FidelityCase c = results[i].c;
      c.scenario.model.tokensPerRank = opt.standIn;
      retry.push_back(c);
      where.push_back(i);
    }
  if (retry.empty()) return;
  auto again = runAll(retry, opt.threads);
  for (std::size_t j = 0; j < again.size(); ++j) results[where[j]] = std::move(again[j]);
}

void printA3(const moe::HardwareProfile& profile, const std::vector<moe::FidelityResult>& normal,
             const std::vector<moe::FidelityResult>& ll) {
  std::cout << "profile " << profile.name << ": UB port " << profile.portGBps << " GB/s per die, "
            << profile.aivCores
            << " AIV cores, payload none; predictions only (the A3 measurements are held "
               "out: docs/FIDELITY.md)\n\n";
  if (!normal.empty())
    printPredictions(normal,
                     "normal mode (flat design, INT8 dispatch, BF16 combine, 256 experts, "
                     "top-8, H 7168, one UB domain)");
  if (!normal.empty() && !ll.empty()) std::cout << "\n";
  if (!ll.empty())
    printPredictions(ll,
                     "low-latency mode (flat design, INT8 dispatch, BF16 combine, 128 "
                     "tokens, 256 experts, top-8, H 7168)");
}

void printH800(const moe::HardwareProfile& profile, const std::vector<moe::FidelityResult>& normal,
               const std::vector<moe::FidelityResult>& ll) {
  std::cout << "profile " << profile.name << ": port " << profile.portGBps << " GB/s, NIC "
            << profile.nicGBps << " GB/s, " << profile.aivCores << " communication SMs, "
            << "payload none; published figures: DeepEP V1 on H800 (docs/legacy.md)\n\n";
  if (!normal.empty()) printNormal(normal);
  if (!normal.empty() && !ll.empty()) std::cout << "\n";
  if (!ll.empty()) printLowLatency(ll);
  for (const auto& r : normal)
    if (r.c.calibration && r.notRun.empty()) {
      std::printf(
          "\ncalibration (intranode EP 8): dispatch %.1f GB/s vs 153 (%s), combine %.1f GB/s vs "
          "158 (%s)\n",
          r.dispatchGBps(), pct(r.dispatchGBps(), 153).c_str(), r.combineGBps(),
          pct(r.combineGBps(), 158).c_str());
    }
}

void runFidelity(const FidelityOptions& opt) {
  const moe::FidelityTarget target = *moe::fidelityTargetFromName(opt.target);
  moe::require(opt.minEp <= opt.maxEp, "--min-ep",
               "must not exceed --max-ep (" + std::to_string(opt.minEp) + " > " +
                   std::to_string(opt.maxEp) + ")");
  auto cases = moe::fidelityCases(target, opt.tokens);
  const moe::HardwareProfile profile = cases.front().scenario.hardware;
  if (!opt.writeScenarios.empty()) {
    writeScenarios(chooseCases(opt, cases, nullptr), opt.writeScenarios, opt.tokens, opt.standIn);
    return;
  }
  std::vector<moe::FidelityResult> skipped;
  const auto chosen = chooseCases(opt, cases, &skipped);
  moe::require(!chosen.empty(), "--max-ep",
               "leaves no shape of --mode " + opt.mode + " to run (all are skipped)");
  std::vector<moe::FidelityResult> results = runAll(chosen, opt.threads);
  runStandIns(opt, results);
  // A table of refusals is no benchmark: when no shape ran, say why (exit 2).
  if (std::none_of(results.begin(), results.end(),
                   [](const moe::FidelityResult& r) { return r.notRun.empty(); }))
    throw moe::InputError(opt.mode == "low-latency" ? "--mode" : "--tokens",
                          "no shape of --mode " + opt.mode + " could run; EP " +
                              std::to_string(results.front().c.ep) + ": " + results.front().notRun);
  std::vector<moe::FidelityResult> normal, ll;
  for (auto& r : skipped) results.push_back(std::move(r));
  // Rows by mode, then in EP order, whichever end of the range was skipped.
  std::stable_sort(results.begin(), results.end(),
                   [](const moe::FidelityResult& a, const moe::FidelityResult& b) {
                     return std::pair(a.c.mode, a.c.ep) < std::pair(b.c.mode, b.c.ep);
                   });
  for (auto& r : results) (r.c.mode == moe::FidelityMode::Normal ? normal : ll).push_back(r);
  if (!opt.csv.empty()) writeCsv(opt.csv, target, results);
  if (target == moe::FidelityTarget::AscendA3)
    printA3(profile, normal, ll);
  else
    printH800(profile, normal, ll);
}

const moesim::RegisterCommand kFidelity([](CLI::App& app, int& exitCode) {
  auto opt = std::make_shared<FidelityOptions>();
  auto* sub = app.add_subcommand(
      "fidelity",
      "Run DeepEP's benchmark shapes on the h800-nvswitch profile and print the figures next "
      "to DeepEP's published ones (docs/FIDELITY.md)");
  sub->add_option("--target", opt->target,
                  "h800: DeepEP V1's H800 table, published figures beside the predictions "
                  "(default); ascend-a3: the DeepEP-Ascend shapes on the atlas-a3-superpod "
                  "profile, predictions only (a blind check, docs/FIDELITY.md)")
      ->check(CLI::IsMember({"h800", "ascend-a3"}));
  auto* csvOpt =
      sub->add_option("--csv", opt->csv, "Write target,mode,ep,stage,time_us,gbps rows to FILE");
  sub->add_option("--mode", opt->mode, "normal, low-latency or all (default all)")
      ->check(CLI::IsMember({"normal", "low-latency", "all"}));
  sub->add_option("--tokens", opt->tokens,
                  "Normal-mode tokens per rank (default 4096, DeepEP's shape)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("--stand-in-tokens", opt->standIn,
                  "Normal-mode tokens per rank to run instead when the engine refuses --tokens "
                  "(default 512; 0: do not substitute)")
      ->check(CLI::Range(0, 1 << 20));
  sub->add_option("--max-ep", opt->maxEp,
                  "Largest EP to run, in either mode (default 256, all of them; larger shapes "
                  "are listed as skipped)")
      ->check(CLI::Range(8, 1024));
  sub->add_option("--min-ep", opt->minEp,
                  "Smallest EP to run, in either mode (default 8, all of them; smaller shapes "
                  "are listed as skipped)")
      ->check(CLI::Range(8, 1024));
  sub->add_option("--threads", opt->threads,
                  "Shapes run at once (default 2; results do not "
                  "depend on it)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--write-scenarios", opt->writeScenarios,
                  "Write each shape of --mode (at --tokens) as DIR/<name>.json and run "
                  "nothing: open one in the workbench, run it with moe-sim run, or sweep it")
      ->check(moesim::nonEmptyPath());
  sub->callback([opt, csvOpt, &exitCode] {
    moe::checkOutputPaths({{"--csv", opt->csv, csvOpt->count() > 0}}, {});
    runFidelity(*opt);
    exitCode = 0;
  });
});

}  // namespace
