#include "core/run/a2a_matmul_report.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "core/observe/trace_export.h"
#include "core/run/run_digest.h"
#include "core/run/run_factory.h"

namespace moe {

namespace {
Time phaseTime(const A2aMatmulRunResult& r, const std::string& name) {
  for (const auto& p : r.phases)
    if (p.name == name) return p.end - p.start;
  return 0;
}
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
}  // namespace

double A2aMatmulReport::overlapRatio() const {
  const double comm = static_cast<double>(phaseTime(sequential, "all-to-all") +
                                          phaseTime(sequential, "reduce-scatter"));
  if (comm <= 0) return 0.0;
  const double hidden = static_cast<double>(sequential.time - pipelined.time) / comm;
  return std::clamp(hidden, 0.0, 1.0);
}

std::uint64_t A2aMatmulReport::digest() const {
  return runsDigest({pipelined.digest, sequential.digest});
}

bool A2aMatmulReport::ok() const {
  if (!pipelined.finished || !sequential.finished) return false;
  for (const auto& c : checks)
    if (!c.ok) return false;
  return true;
}

A2aMatmulReport runA2aMatmulWorkload(const ResolvedScenario& rs, bool verify,
                                     const RunProgress& progress) {
  A2aMatmulReport rep;
  rep.shape = rs.a2aInputs()->shape;
  auto runOne = [&](Design design) {
    std::shared_ptr<A2aMatmulRun> run = makeA2aMatmulRun(rs, design);
    if (progress) {  // the same events in the same order as runToEnd
      Simulator& sim = run->emulation().sim();
      while (sim.step())
        if ((sim.eventsRun() & 0xffff) == 0)
          progress(run->design(), run->currentStage(), sim.now(), sim.eventsRun());
    }
    run->runToEnd();
    return run;
  };
  rep.pipelinedRun = runOne(Design::Pipelined);
  rep.pipelined = rep.pipelinedRun->result();
  rep.sequentialRun = runOne(Design::Sequential);
  rep.sequential = rep.sequentialRun->result();
  rep.verified = verify;
  rep.checks.push_back(rep.pipelined.completed);
  rep.checks.push_back(rep.sequential.completed);
  if (verify) {
    const A2aMatmulReference ref = a2aMatmulReference(*rs.a2aInputs());
    rep.checks.push_back(rep.pipelinedRun->verify(ref));
    rep.checks.push_back(rep.sequentialRun->verify(ref));
  }
  return rep;
}

namespace {
void phaseRows(std::ostream& out, bool pipelined, const std::vector<StageReport>& phases) {
  for (const auto& p : phases)
    out << (pipelined ? "pipelined" : "sequential") << "," << p.name << ","
        << fmt("%.6f", toMicroseconds(p.start)) << "," << fmt("%.6f", toMicroseconds(p.end))
        << "\n";
}
}  // namespace

void writeA2aMatmulCsv(std::ostream& out, const A2aMatmulReport& r) {
  out << "kernel,phase,start_us,end_us\n";
  for (const A2aMatmulRunResult* k : {&r.pipelined, &r.sequential})
    phaseRows(out, k->pipelined, k->phases);
}

void writeA2aMatmulPhasesCsv(std::ostream& out, const std::vector<const A2aMatmulRun*>& runs) {
  out << "kernel,phase,start_us,end_us\n";
  for (const A2aMatmulRun* k : runs) phaseRows(out, k->pipelined(), k->phases());
}

void writeA2aMatmulTrace(std::ostream& out, const A2aMatmulReport& r) {
  writeChromeTrace(out, {TraceSource{&r.pipelinedRun->emulation(), "pipelined"},
                         TraceSource{&r.sequentialRun->emulation(), "sequential"}});
}

}  // namespace moe
