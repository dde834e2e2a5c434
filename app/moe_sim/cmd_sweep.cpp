// `moe-sim sweep SWEEP.json [--csv FILE] [--jsonl FILE] [-j N] [--resume]`: runs every point
// of a sweep's cartesian product (docs/SWEEP.md) for each design and writes one row per
// point and design, in point order whatever -j is. Under mpirun the points are spread over
// the ranks (sweep_mpi.h) and rank 0 writes the same files. An invalid point is a row, not
// an error; exit 1 when a run deadlocked or failed verification, 2 for a bad sweep file.

#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "app/moe_sim/command_registry.h"
#include "app/moe_sim/sweep_mpi.h"
#include "app/moe_sim/sweep_outputs.h"
#include "app/moe_sim/sweep_progress.h"
#include "core/studies/sweep_row.h"
#include "core/studies/sweep_spec.h"
#include "core/studies/sweep_workers.h"
#include "core/util/error.h"
#include "core/util/parallel_map.h"

namespace {

struct SweepOptions {
  std::string sweepFile;
  std::string csvFile;
  std::string jsonlFile;
  unsigned jobs = 0;
  bool resume = false;
  std::optional<double> rankTimeout;  // seconds; under mpirun only
};

// Counts what the rows say, for the closing line and the exit code.
struct Tally {
  std::size_t points = 0, invalid = 0, errors = 0, deadlocks = 0, verifyFailed = 0;
  void add(const std::vector<moe::SweepRow>& rows) {
    ++points;
    const std::string& status = rows.front()["status"].get_ref<const std::string&>();
    if (status == "invalid") ++invalid;
    if (status == "error") ++errors;
    for (const auto& r : rows) {
      if (r["status"] == "deadlock") ++deadlocks;
      if (r["verification"] == "failed") ++verifyFailed;
    }
  }
  int exitCode() const { return deadlocks + verifyFailed > 0 ? 1 : 0; }
  void print(std::size_t skipped) const {
    std::cerr << "sweep: " << points << " point(s) run";
    if (skipped) std::cerr << ", " << skipped << " already in the output (--resume)";
    if (invalid) std::cerr << ", " << invalid << " invalid (see their rows' message)";
    if (errors) std::cerr << ", " << errors << " failed (status error)";
    if (deadlocks) std::cerr << ", " << deadlocks << " run(s) deadlocked";
    if (verifyFailed) std::cerr << ", " << verifyFailed << " run(s) failed verification";
    std::cerr << "\n";
  }
};

std::vector<std::size_t> pointsToRun(const moe::SweepSpec& spec, const moe::SweepOutputs& out) {
  std::vector<std::size_t> todo;
  for (std::size_t p = 0; p < spec.pointCount(); ++p)
    if (!out.donePoints().count(p)) todo.push_back(p);
  return todo;
}

// The memory the sweep's workers may take: measured, or (tests only) the bytes in
// MOE_TEST_MEMORY_AVAILABLE, so a test can make -j 2 not fit without depending on the RAM
// of the machine it runs on.
std::uint64_t memoryAvailable() {
  const char* injected = std::getenv("MOE_TEST_MEMORY_AVAILABLE");
  if (injected == nullptr) return moe::hostMemoryAvailable();
  const std::string text = injected;
  moe::require(!text.empty() && text.size() <= 19 &&
                   text.find_first_not_of("0123456789") == std::string::npos,
               "MOE_TEST_MEMORY_AVAILABLE", "must be a number of bytes (a test-only setting)");
  return std::stoull(text);
}

// Runs `todo` on local threads, as many at once as fit in memory (at most `jobs`); rows
// reach the outputs as points finish.
void runLocally(const moe::SweepSpec& spec, const std::vector<std::size_t>& todo, unsigned jobs,
                moe::SweepOutputs& out, Tally& tally) {
  moe::ParallelMapOptions options;
  options.threads = jobs;
  if (moe::resolveThreadCount(jobs, todo.size()) > 1) {
    const moe::SweepWorkers plan = moe::planSweepWorkers(spec, todo, jobs, memoryAvailable());
    if (plan.reduced()) std::cerr << "sweep: " << plan.note() << "\n";
    options.threads = plan.workers;
  }
  moe::SweepProgress progress(todo.size());
  std::mutex mutex;
  moe::parallelMap<bool>(
      todo.size(),
      [&](std::size_t i) {
        const std::vector<moe::SweepRow> rows = moe::runSweepPoint(spec, todo[i]);
        std::lock_guard lock(mutex);
        out.add(todo[i], rows);
        tally.add(rows);
        progress.update(tally.points);
        return true;
      },
      options);
  progress.clear();
}

#ifdef MOE_HAVE_MPI
int runOverMpi(const moe::SweepSpec& spec, unsigned jobs, std::optional<double> rankTimeout,
               const std::function<std::unique_ptr<moe::SweepOutputs>()>& openOutputs) {
  moe::MpiSession mpi;
  std::unique_ptr<moe::SweepOutputs> out;
  std::string problem;
  if (mpi.rank() == 0) {
    try {
      out = openOutputs();
    } catch (const moe::InputError& e) {
      problem = e.what();
    }
  }
  if (!mpi.broadcast(problem.empty())) {
    if (mpi.rank() == 0) std::cerr << "error: " << problem << "\n";
    return 2;
  }
  if (mpi.rank() != 0) {
    moe::workSweepPoints(spec, moe::sweepHeartbeatSeconds(rankTimeout));
    return 0;
  }
  const std::vector<std::size_t> todo = pointsToRun(spec, *out);
  Tally tally;
  if (mpi.size() == 1) {
    runLocally(spec, todo, jobs, *out, tally);
  } else {
    moe::SweepProgress progress(todo.size());
    const auto silent = moe::serveSweepPoints(
        todo,
        [&](std::size_t point, const std::vector<moe::SweepRow>& rows) {
          out->add(point, rows);
          tally.add(rows);
          progress.update(tally.points);
        },
        rankTimeout);
    progress.clear();
    if (silent) {
      // Every finished point's rows are on disk already (appended and flushed as they came).
      std::cerr << "error: " << silent->message()
                << " (--rank-timeout); the points finished so far are in the output files, and "
                   "--resume runs the rest\n";
      moe::abortAllRanks(2);
    }
  }
  out->finish();
  tally.print(spec.pointCount() - todo.size());
  return tally.exitCode();
}
#endif

const moesim::RegisterCommand kSweep([](CLI::App& app, int& exitCode) {
  auto opt = std::make_shared<SweepOptions>();
  auto* sub = app.add_subcommand(
      "sweep",
      "Run every point of a sweep file (docs/SWEEP.md) and write one row per point and "
      "design; under mpirun the points are spread over the ranks");
  sub->add_option("sweep", opt->sweepFile, "Sweep JSON file")
      ->required()
      ->check(moesim::nonEmptyPath());
  auto* csvOpt = sub->add_option("--csv", opt->csvFile,
                                 "Write the rows as CSV (without --csv or --jsonl: CSV on stdout)");
  auto* jsonlOpt = sub->add_option("--jsonl", opt->jsonlFile, "Write the rows as JSON lines");
  sub->add_option("-j,--jobs", opt->jobs,
                  "Points run at once on this machine (default: all cores; under mpirun each "
                  "rank runs one point at a time)")
      ->check(CLI::Range(1u, 1024u));
  sub->add_option("--rank-timeout", opt->rankTimeout,
                  "Under mpirun: seconds a rank running a point may go unheard (ranks heartbeat "
                  "about every second) before rank 0 reports it and exits 2 (default: 10x the "
                  "slowest point so far, at least 60)")
      ->check(CLI::Range(0.1, 1e6));
  sub->add_flag("--resume", opt->resume,
                "Keep the points already in the --csv/--jsonl files and run only the rest");
  sub->callback([opt, csvOpt, jsonlOpt, &exitCode] {
    const moe::SweepSpec spec = moe::loadSweepFile(opt->sweepFile);
    auto openOutputs = [&] {
      return std::make_unique<moe::SweepOutputs>(spec, opt->sweepFile, opt->csvFile,
                                                 csvOpt->count() > 0, opt->jsonlFile,
                                                 jsonlOpt->count() > 0, opt->resume);
    };
    if (moe::launchedByMpi()) {
#ifdef MOE_HAVE_MPI
      exitCode = runOverMpi(spec, opt->jobs, opt->rankTimeout, openOutputs);
      return;
#else
      throw moe::InputError("mpirun",
                            "this moe-sim was built without MPI (install libopenmpi-dev, "
                            "scripts/install-deps.sh, and rebuild); every rank would run the "
                            "whole sweep");
#endif
    }
    std::unique_ptr<moe::SweepOutputs> out = openOutputs();
    const std::vector<std::size_t> todo = pointsToRun(spec, *out);
    Tally tally;
    runLocally(spec, todo, opt->jobs, *out, tally);
    out->finish();
    tally.print(spec.pointCount() - todo.size());
    exitCode = tally.exitCode();
  });
});

}  // namespace
