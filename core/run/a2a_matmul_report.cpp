#include "core/run/a2a_matmul_report.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "core/observe/trace_export.h"
#include "core/run/run_digest.h"
#include "core/run/run_factory.h"

namespace moe {

namespace {
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
}  // namespace

double A2aMatmulReport::overlapRatio() const {
  const double comm = static_cast<double>(sequential.run.stageTime(StageId::AllToAll) +
                                          sequential.run.stageTime(StageId::ReduceScatter));
  if (comm <= 0) return 0.0;
  const double hidden = static_cast<double>(sequential.run.end - pipelined.run.end) / comm;
  return std::clamp(hidden, 0.0, 1.0);
}

std::uint64_t A2aMatmulReport::digest() const {
  return runsDigest({pipelined.run.digest, sequential.run.digest});
}

bool A2aMatmulReport::ok() const {
  if (!pipelined.run.finished || !sequential.run.finished) return false;
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
  rep.pipelined = rep.pipelinedRun->fusedResult();
  rep.sequentialRun = runOne(Design::Sequential);
  rep.sequential = rep.sequentialRun->fusedResult();
  rep.verified = verify;
  rep.checks.push_back(rep.pipelined.completed);
  rep.checks.push_back(rep.sequential.completed);
  rep.pipelined.run.verification = {rep.pipelined.completed};
  rep.sequential.run.verification = {rep.sequential.completed};
  if (verify) {
    const A2aMatmulReference& ref = rs.a2aReference()->get();
    for (A2aMatmulRunResult* side : {&rep.pipelined, &rep.sequential}) {
      const A2aMatmulRun& run = side == &rep.pipelined ? *rep.pipelinedRun : *rep.sequentialRun;
      side->run.verification.push_back(run.verify(ref));
      side->run.verified = true;
    }
    rep.checks.push_back(rep.pipelined.run.verification.back());
    rep.checks.push_back(rep.sequential.run.verification.back());
  }
  return rep;
}

namespace {
void phaseRows(std::ostream& out, const RunResult& run) {
  for (const auto& p : run.stages)
    out << run.design << "," << p.name << "," << fmt("%.6f", toMicroseconds(p.start)) << ","
        << fmt("%.6f", toMicroseconds(p.end)) << "\n";
}
}  // namespace

void writeA2aMatmulCsv(std::ostream& out, const A2aMatmulReport& r) {
  out << "kernel,phase,start_us,end_us\n";
  for (const A2aMatmulRunResult* k : {&r.pipelined, &r.sequential}) phaseRows(out, k->run);
}

void writeA2aMatmulPhasesCsv(std::ostream& out, const std::vector<RunResult>& runs) {
  out << "kernel,phase,start_us,end_us\n";
  for (const RunResult& k : runs) phaseRows(out, k);
}

void writeA2aMatmulTrace(std::ostream& out, const A2aMatmulReport& r) {
  writeChromeTrace(out, {TraceSource{&r.pipelinedRun->emulation(), "pipelined"},
                         TraceSource{&r.sequentialRun->emulation(), "sequential"}});
}

}  // namespace moe
