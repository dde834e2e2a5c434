#include "core/pipeline/run_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>
#include <optional>

#include "core/observe/trace_export.h"
#include "core/pipeline/run_factory.h"
#include "core/util/hash.h"

namespace moe {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

double achievedGBps(double bytes, Time t) {
  // Link byte counts are differences of running float sums: clamp the rounding dust.
  return t > 0 && bytes > 0.5 ? bytes / static_cast<double>(t) * 1e3 : 0.0;
}

bool RunReport::ok() const {
  for (const auto& d : deadlocks)
    if (!d.empty()) return false;
  for (const auto& run : checks)
    for (const auto& c : run)
      if (!c.ok) return false;
  for (const auto& c : crossChecks)
    if (!c.ok) return false;
  return true;
}

std::string stageLabel(const std::string& n) {
  for (const char* suffix : {"-phased", "-streaming"}) {
    const std::string sfx(suffix);
    if (n.size() > sfx.size() && n.compare(n.size() - sfx.size(), sfx.size(), sfx) == 0)
      return n.substr(0, n.size() - sfx.size());
  }
  return n;
}

RunReport runScenario(const ResolvedScenario& rs, bool verify, Fault fault) {
  RunReport r;
  r.given = rs.given();
  r.scenario = rs.scenario();
  r.load = computeExpertLoad(r.scenario, *rs.gating());
  std::optional<ReferenceLayer> ref;
  if (verify) ref = computeReference(rs);
  r.verified = verify;
  Fnv1a digest;
  for (Design design : scenarioDesigns(r.scenario)) {
    // A fault is injected into the streaming combine; the phased run beside it runs clean.
    auto run = makeLayerRun(rs, design, design == Design::Streaming ? fault : Fault::None);
    run->runToEnd();
    if (ref) r.checks.push_back(run->verify(*ref));
    // One run's tensors at a time: the report keeps stages, rings and the event log.
    run->releaseTensors();
    r.deadlocks.push_back(run->deadlocked()
                              ? "deadlock in " + run->design() + " run during stage '" +
                                    run->currentStage() + "' at " +
                                    fmt("%.3f", toMicroseconds(run->emulation().sim().now())) +
                                    " us: no event can fire while these cores wait:\n" +
                                    run->emulation().deadlockDiagnosis()
                              : std::string());
    digest.value(run->digest());
    r.runs.push_back(std::move(run));
  }
  r.digest = digest.digest();
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

void writeReportCsv(std::ostream& out, const RunReport& r) {
  out << "impl,stage,start_us,end_us,duration_us,hccs_bytes,nic_bytes,achieved_gbps\n";
  for (const auto& run : r.runs)
    for (const StageReport& st : run->stages()) {
      char line[256];
      std::snprintf(line, sizeof line, "%s,%s,%.6f,%.6f,%.6f,%.0f,%.0f,%.3f\n",
                    run->design().c_str(), st.name.c_str(), toMicroseconds(st.start),
                    toMicroseconds(st.end), toMicroseconds(st.duration()), st.hccsBytes,
                    st.nicBytes, achievedGBps(st.linkBytes, st.duration()));
      out << line;
    }
}

}  // namespace moe
