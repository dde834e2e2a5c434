#include "core/pipeline/run_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>

#include "core/observe/trace_export.h"
#include "core/util/hash.h"

namespace moe {

namespace {

const char* implName(DispatchImpl i) { return i == DispatchImpl::Phased ? "phased" : "streaming"; }

const char* routingName(RoutingKind k) {
  switch (k) {
    case RoutingKind::Uniform: return "uniform";
    case RoutingKind::PowerLaw: return "power-law";
    case RoutingKind::Hotspot: return "hotspot";
    case RoutingKind::GroupLimited: return "group-limited";
    case RoutingKind::Trace: return "trace";
  }
  return "?";
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Link byte counts are differences of running float sums: clamp the rounding dust.
double gbps(double bytes, Time t) { return t > 0 && bytes > 0.5 ? bytes / static_cast<double>(t) * 1e3 : 0.0; }

}  // namespace

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

RunReport runScenario(const Scenario& sc, bool verify, Fault fault) {
  RunReport r;
  r.scenario = sc;
  checkRunnable(sc);
  auto gating = std::make_shared<const std::vector<RankGating>>(generateGating(sc));
  std::vector<DispatchImpl> impls;
  if (sc.dispatchImpl == DispatchImpl::Both)
    impls = {DispatchImpl::Phased, DispatchImpl::Streaming};
  else
    impls = {sc.dispatchImpl};
  Fnv1a digest;
  std::optional<ReferenceLayer> ref;
  if (verify) ref = computeReference(sc, gating);
  r.verified = verify;
  for (DispatchImpl impl : impls) {
    auto run = std::make_unique<LayerRun>(sc, impl, gating, fault);
    run->runToEnd();
    if (ref) r.checks.push_back(run->verify(*ref));
    // One run's tensors at a time: the report keeps stages, rings and the event log.
    run->releaseTensors();
    r.deadlocks.push_back(run->deadlocked()
                              ? std::string("deadlock in ") + implName(impl) + " run during stage '" +
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
    r.crossChecks.push_back({"phased == streaming through the experts (identical bytes)", same,
                             same ? "64-bit hash of every tensor up to the expert outputs" : "output hashes differ"});
  }
  return r;
}

void printReport(std::ostream& out, const RunReport& r) {
  const Scenario& sc = r.scenario;
  out << "moe-sim: scenario \"" << sc.name << "\": " << sc.cluster.servers << " server(s) x "
      << sc.cluster.cardsPerServer << " cards (" << sc.profileName << "), " << sc.model.tokensPerRank
      << " tokens/rank, H " << sc.model.hidden << ", top-" << sc.model.topk << " of " << sc.model.experts
      << " experts, " << routingName(sc.routing.kind) << " routing, payload "
      << (sc.payload == PayloadMode::Full ? "full" : "none") << ", seed " << sc.seed << "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-20s", "stage");
  out << line;
  for (const auto& run : r.runs) {
    std::snprintf(line, sizeof line, " | %-36s", (std::string(implName(run->impl())) + " (dispatch + combine)").c_str());
    out << line;
  }
  out << "\n";
  std::snprintf(line, sizeof line, "%-20s", "");
  out << line;
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    std::snprintf(line, sizeof line, " | %10s %12s %12s", "time us", "HCCS GB/s", "RDMA GB/s");
    out << line;
  }
  out << "\n";
  const std::size_t stages = r.runs.front()->stages().size();
  for (std::size_t s = 0; s < stages; ++s) {
    const std::string name = stageLabel(r.runs.front()->stages()[s].name);
    std::snprintf(line, sizeof line, "%-20s", name.c_str());
    out << line;
    for (const auto& run : r.runs) {
      if (s >= run->stages().size()) continue;
      const StageReport& st = run->stages()[s];
      std::snprintf(line, sizeof line, " | %10.3f %12.2f %12.2f", toMicroseconds(st.duration()),
                    gbps(st.hccsBytes, st.duration()), gbps(st.nicBytes, st.duration()));
      out << line;
    }
    out << "\n";
  }
  std::snprintf(line, sizeof line, "%-20s", "total");
  out << line;
  for (const auto& run : r.runs) {
    std::snprintf(line, sizeof line, " | %10.3f %12s %12s", toMicroseconds(run->emulation().sim().now()), "", "");
    out << line;
  }
  out << "\n\n";
  for (const auto& run : r.runs) {
    const std::string n = implName(run->impl());
    out << n << ": dispatch comm buffers " << fmt("%.2f", static_cast<double>(run->commBufferBytes()) / (1 << 20))
        << " MiB over " << sc.cluster.ranks() << " cards";
    if (run->impl() == DispatchImpl::Streaming)
      out << ", peak ring occupancy " << run->peakRingOccupancy() << " of " << sc.rings.chunkBytes * sc.rings.queueChunks
          << " B (" << run->emulation().rings().size() << " rings)";
    out << "; combine buffers " << fmt("%.2f", static_cast<double>(run->combineBufferBytes()) / (1 << 20)) << " MiB";
    out << "; " << run->emulation().sim().eventsRun() << " events, " << run->emulation().machine().rdmaPosts
        << " RDMA posts\n";
  }
  // Where each role's time went (summed over all cores of that role, whole run).
  out << "\ntime per role and activity (us, summed over cores)\n";
  std::snprintf(line, sizeof line, "%-11s %-10s", "design", "role");
  out << line;
  const Activity shown[] = {Activity::Copy, Activity::Vector, Activity::Cube, Activity::WaitSpace,
                            Activity::WaitData, Activity::WaitSync};
  for (Activity a : shown) {
    std::snprintf(line, sizeof line, " %11s", std::string(activityName(a)).c_str());
    out << line;
  }
  out << "\n";
  for (const auto& run : r.runs) {
    const Machine& m = run->emulation().machine();
    for (Role role : {Role::Sender, Role::Forwarder, Role::Receiver, Role::Gemm}) {
      std::array<Time, static_cast<int>(Activity::Count)> sum{};
      bool any = false;
      // Every core's time is already split by the role it had then (cores change role
      // from stage to stage), so sum that role's share over all cores.
      for (int c = 0; c < m.coreCount(); ++c)
        for (int a = 0; a < static_cast<int>(Activity::Count); ++a) {
          sum[a] += m.core(c).roleActivityTime(role)[a];
          any = any || sum[a] > 0;
        }
      if (!any) continue;
      std::snprintf(line, sizeof line, "%-11s %-10s", implName(run->impl()), std::string(roleName(role)).c_str());
      out << line;
      for (Activity a : shown) {
        std::snprintf(line, sizeof line, " %11.1f", toMicroseconds(sum[static_cast<int>(a)]));
        out << line;
      }
      out << "\n";
    }
  }
  for (std::size_t i = 0; i < r.deadlocks.size(); ++i)
    if (!r.deadlocks[i].empty()) out << "\n" << r.deadlocks[i];
  if (r.verified) {
    out << "\nverification:\n";
    for (std::size_t i = 0; i < r.runs.size(); ++i)
      for (const auto& c : r.checks[i])
        out << "  [" << (c.ok ? "ok" : "FAIL") << "] " << implName(r.runs[i]->impl()) << ": " << c.name << " ("
            << c.detail << ")\n";
    for (const auto& c : r.crossChecks)
      out << "  [" << (c.ok ? "ok" : "FAIL") << "] " << c.name << " (" << c.detail << ")\n";
    out << "verification: " << (r.ok() ? "passed" : "FAILED") << "\n";
  }
  std::snprintf(line, sizeof line, "digest: %016llx\n", static_cast<unsigned long long>(r.digest));
  out << "\n" << line;
}

void writeReportTrace(std::ostream& out, const RunReport& r) {
  std::vector<TraceSource> sources;
  for (const auto& run : r.runs) sources.push_back({&run->emulation(), implName(run->impl())});
  writeChromeTrace(out, sources);
}

void writeReportCsv(std::ostream& out, const RunReport& r) {
  out << "impl,stage,start_us,end_us,duration_us,hccs_bytes,nic_bytes,achieved_gbps\n";
  for (const auto& run : r.runs)
    for (const StageReport& st : run->stages()) {
      char line[256];
      std::snprintf(line, sizeof line, "%s,%s,%.6f,%.6f,%.6f,%.0f,%.0f,%.3f\n", implName(run->impl()),
                    st.name.c_str(), toMicroseconds(st.start), toMicroseconds(st.end),
                    toMicroseconds(st.duration()), st.hccsBytes, st.nicBytes, gbps(st.linkBytes, st.duration()));
      out << line;
    }
}

}  // namespace moe
