#include "core/run/run_report.h"

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <mutex>
#include <numeric>
#include <optional>

#include "core/observe/trace_export.h"
#include "core/run/memory_estimate.h"
#include "core/run/run_digest.h"
#include "core/run/run_factory.h"
#include "core/util/error.h"
#include "core/util/parallel_map.h"

namespace moe {

double achievedGBps(double bytes, Time t) {
  // Link byte counts are differences of running float sums: clamp the rounding dust.
  return t > 0 && bytes > 0.5 ? bytes / static_cast<double>(t) * 1e3 : 0.0;
}

bool RunReport::ok() const {
  for (const RunResult& run : results)
    if (run.deadlocked || !run.verificationPassed()) return false;
  for (const auto& c : crossChecks)
    if (!c.ok) return false;
  return true;
}

namespace {

// One design's finished run and what the report reads from it.
struct DesignRun {
  std::unique_ptr<LayerRun> run;
  RunResult result;
  std::int64_t tensorBytes = 0;
  std::vector<CriticalPathAttribution> why;
};

DesignRun runDesign(const ResolvedScenario& rs, Design design, Fault fault,
                    const ReferenceLayer* ref, const RunProgress& progress, TransferLog* transfers,
                    bool why, bool observationLogs) {
  AllocationScope scope("the emulated cluster's GM and event log");
  DesignRun out;
  auto& run = out.run;
  run = makeLayerRun(rs, design, fault);
  run->emulation().observer().keepLogs(observationLogs);
  // Only this function reads the run's tensors, checking them as their stages end.
  run->freeTensorsWhenDead(ref);
  if (!why && !observationLogs) run->retireRingsAfterTheirStage();
  if (transfers) {
    transfers->design = run->design();
    run->emulation().machine().setTransferLog(transfers);
  }
  std::optional<CausalLog> causes;
  if (why) {
    causes.emplace(run->emulation().machine().coreCount());
    run->emulation().machine().setCausalLog(&*causes);
  }
  if (progress) {
    // The same events in the same order as runToEnd, with a look every 2^16 of them.
    Simulator& sim = run->emulation().sim();
    while (sim.step())
      if ((sim.eventsRun() & 0xffff) == 0)
        progress(run->design(), run->currentStage(), sim.now(), sim.eventsRun());
  }
  run->runToEnd();  // (after the loop above: only surfaces a kernel's exception)
  run->emulation().machine().setTransferLog(nullptr);
  run->emulation().machine().setCausalLog(nullptr);
  if (causes)
    for (const StageReport& st : run->stages())
      out.why.push_back(attributeCriticalPath(*causes, run->emulation().machine(), st));
  causes.reset();
  std::vector<VerificationCheck> checks;
  if (ref) checks = run->verify(*ref);
  const Scenario& sc = rs.scenario();
  const std::int64_t row = static_cast<std::int64_t>(sc.model.hidden) * 2;
  for (const CardTensors& t : run->context().cards)
    out.tensorBytes +=
        2 * t.dispatch.recvRows * row + 2 * static_cast<std::int64_t>(sc.model.tokensPerRank) * row;
  // The report keeps stages, rings and the event log, not the tensors.
  run->releaseTensors();
  out.result = ref ? run->result(std::move(checks)) : run->result();
  return out;
}

// Designs run at once when there is a core for each and their host memory, summed, fits
// in what this process may use; otherwise one after the other, each design's memory freed
// before the next starts. (The sum counts the tokens once per design, though all designs
// read one copy of them: a bound, not the figure.)
unsigned designThreads(const ResolvedScenario& rs, std::size_t designs, unsigned requested) {
  const unsigned threads = resolveThreadCount(requested, designs);
  if (threads <= 1) return 1;
  const MemoryEstimate m = estimateMemory(rs.scenario(), rs.placePerRank());
  return (m.hostBytes + kWorkerThreadOverheadBytes) * designs <= hostMemoryAvailable() ? threads
                                                                                       : 1;
}

}  // namespace

RunReport runScenario(const ResolvedScenario& rs, bool verify, Fault fault,
                      const RunProgress& progress, std::vector<TransferLog>* transfers,
                      unsigned threads, bool why, bool observationLogs) {
  RunReport r;
  r.given = rs.given();
  r.scenario = rs.scenario();
  r.load = computeExpertLoad(rs);
  std::optional<ReferenceLayer> ref;
  if (verify) {
    AllocationScope scope("the golden reference (--verify)");
    ref = computeReference(rs);
  }
  r.verified = verify;
  std::vector<Design> designs = scenarioDesigns(r.scenario);
  // A fault is planted in the streaming combine: with "both", the phased run could only
  // repeat a layer that works, delaying the diagnosis the user asked for.
  if (fault != Fault::None) designs = streamingCombineDesigns();
  // Each design's emulation is independent of the others (its own simulator, machine and
  // memory; the reference is only read), so running them at once changes no event, byte or
  // digest: results are gathered in the order of scenarioDesigns either way.
  std::size_t firstLog = 0;
  if (transfers) {
    firstLog = transfers->size();
    transfers->resize(firstLog + designs.size());
  }
  std::mutex progressMutex;
  const RunProgress serialProgress =
      progress
          ? RunProgress([&](const std::string& d, const std::string& s, Time t, std::uint64_t e) {
              std::lock_guard lock(progressMutex);
              progress(d, s, t, e);
            })
          : RunProgress();
  r.designThreads = designThreads(rs, designs.size(), threads);
  std::vector<std::optional<DesignRun>> done = parallelMap<DesignRun>(
      designs.size(),
      [&](std::size_t i) {
        return runDesign(rs, designs[i], fault, ref ? &*ref : nullptr, serialProgress,
                         transfers ? &(*transfers)[firstLog + i] : nullptr, why, observationLogs);
      },
      {r.designThreads, {}, nullptr});
  std::vector<std::uint64_t> digests;
  for (auto& d : done) {
    // Tensors that were held together: the largest run's when designs ran one after the
    // other, their sum when they ran at once.
    r.tensorBytes = r.designThreads > 1 ? r.tensorBytes + d->tensorBytes
                                        : std::max(r.tensorBytes, d->tensorBytes);
    r.results.push_back(std::move(d->result));
    if (why) r.why.push_back(std::move(d->why));
    digests.push_back(r.results.back().digest);
    r.runs.push_back(std::move(d->run));
  }
  r.digest = runsDigest(digests);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  r.peakRssBytes = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
  if (verify && r.runs.size() == 2) {
    const bool same = r.runs[0]->outputHash() == r.runs[1]->outputHash();
    r.crossChecks.push_back(
        {"phased == streaming through the experts (identical bytes)", same,
         same ? "64-bit hash of every tensor up to the expert outputs" : "output hashes differ"});
  }
  return r;
}

void writeReportTrace(std::ostream& out, const RunReport& r) {
  std::vector<TraceSource> sources;
  for (const auto& run : r.runs) sources.push_back({&run->emulation(), run->design()});
  writeChromeTrace(out, sources);
}

void writeStagesCsv(std::ostream& out, const std::vector<RunResult>& runs) {
  out << "impl,stage,start_us,end_us,duration_us,hccs_bytes,nic_bytes,achieved_gbps\n";
  for (const RunResult& run : runs)
    for (const StageReport& st : run.stages) {
      char line[256];
      std::snprintf(line, sizeof line, "%s,%s,%.6f,%.6f,%.6f,%.0f,%.0f,%.3f\n", run.design.c_str(),
                    st.name.c_str(), toMicroseconds(st.start), toMicroseconds(st.end),
                    toMicroseconds(st.duration()), st.hccsBytes, st.nicBytes,
                    achievedGBps(st.linkBytes, st.duration()));
      out << line;
    }
}

}  // namespace moe
