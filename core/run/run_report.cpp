#include "core/run/run_report.h"

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>
#include <optional>

#include "core/observe/trace_export.h"
#include "core/run/run_digest.h"
#include "core/run/run_factory.h"
#include "core/util/error.h"

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

RunReport runScenario(const ResolvedScenario& rs, bool verify, Fault fault,
                      const RunProgress& progress, std::vector<TransferLog>* transfers) {
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
  if (fault != Fault::None) designs = {Design::Streaming};
  std::vector<std::uint64_t> digests;
  for (Design design : designs) {
    AllocationScope scope("the emulated cluster's GM and event log");
    auto run = makeLayerRun(rs, design, fault);
    // Only this function reads the run's tensors, checking them as their stages end.
    run->freeTensorsWhenDead(ref ? &*ref : nullptr);
    if (transfers) {
      transfers->push_back({run->design(), {}});
      run->emulation().machine().setTransferLog(&transfers->back());
    }
    if (progress) {
      // The same events in the same order as runToEnd, with a look every 2^16 of them.
      Simulator& sim = run->emulation().sim();
      while (sim.step())
        if ((sim.eventsRun() & 0xffff) == 0)
          progress(run->design(), run->currentStage(), sim.now(), sim.eventsRun());
    }
    run->runToEnd();  // (after the loop above: only surfaces a kernel's exception)
    run->emulation().machine().setTransferLog(nullptr);  // the next push_back may move it
    std::vector<VerificationCheck> checks;
    if (ref) checks = run->verify(*ref);
    std::int64_t tensors = 0;
    const std::int64_t row = static_cast<std::int64_t>(r.scenario.model.hidden) * 2;
    for (const CardTensors& t : run->context().cards)
      tensors += 2 * t.recvRows * row +
                 2 * static_cast<std::int64_t>(r.scenario.model.tokensPerRank) * row;
    r.tensorBytes = std::max(r.tensorBytes, tensors);
    // One run's tensors at a time: the report keeps stages, rings and the event log.
    run->releaseTensors();
    r.results.push_back(ref ? run->result(std::move(checks)) : run->result());
    digests.push_back(r.results.back().digest);
    r.runs.push_back(std::move(run));
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
