#include "core/pipeline/a2a_matmul_report.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "core/util/hash.h"

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
  Fnv1a h;
  h.value(pipelined.digest);
  h.value(sequential.digest);
  return h.digest();
}

bool A2aMatmulReport::ok() const {
  if (!pipelined.finished || !sequential.finished) return false;
  for (const auto& c : checks)
    if (!c.ok) return false;
  return true;
}

A2aMatmulReport runA2aMatmulWorkload(const Scenario& sc, bool verify) {
  A2aMatmulReport rep;
  rep.shape = shapeFromWorkload(sc.workload);
  validateA2aMatmul(rep.shape, sc.hardware);
  const auto in =
      std::make_shared<const A2aMatmulInputs>(generateA2aMatmulInputs(rep.shape, sc.seed));
  auto runOne = [&](bool pipelined) {
    auto run = std::make_shared<A2aMatmulRun>(sc, in, pipelined);
    run->runToEnd();
    return run;
  };
  rep.pipelinedRun = runOne(true);
  rep.pipelined = rep.pipelinedRun->result();
  rep.sequentialRun = runOne(false);
  rep.sequential = rep.sequentialRun->result();
  rep.verified = verify;
  rep.checks.push_back(rep.pipelined.completed);
  rep.checks.push_back(rep.sequential.completed);
  if (verify) {
    const A2aMatmulReference ref = a2aMatmulReference(*in);
    rep.checks.push_back(rep.pipelinedRun->verify(ref));
    rep.checks.push_back(rep.sequentialRun->verify(ref));
  }
  return rep;
}

void printA2aMatmulReport(std::ostream& out, const A2aMatmulReport& r) {
  const A2aMatmulShape& s = r.shape;
  out << "workload: alltoall-matmul-rs  M=" << s.m << " N=" << s.n << " K=" << s.k
      << " ranks=" << s.ranks << " tile=" << s.tileM << "x" << s.tileN << "x" << s.tileK
      << " stages=" << s.stages << "\n";
  auto us = [](Time t) { return fmt("%.3f", toMicroseconds(t)); };
  out << "pipelined   emulated " << us(r.pipelined.time) << " us  (" << r.pipelined.events
      << " events)\n";
  out << "sequential  emulated " << us(r.sequential.time) << " us  (";
  for (std::size_t i = 0; i < r.sequential.phases.size(); ++i)
    out << (i ? ", " : "") << r.sequential.phases[i].name << " "
        << us(r.sequential.phases[i].end - r.sequential.phases[i].start);
  out << " us)\n";
  const double ratio = r.sequential.time > 0 ? static_cast<double>(r.pipelined.time) /
                                                   static_cast<double>(r.sequential.time)
                                             : 0.0;
  out << "ratio pipelined/sequential: " << fmt("%.3f", ratio) << "\n";
  out << "overlap ratio: " << fmt("%.3f", r.overlapRatio()) << "\n";
  out << "workspace per rank: allocated pipelined " << r.pipelined.workspaceBytes
      << " B, sequential " << r.sequential.workspaceBytes << " B; peak in use (measured) pipelined "
      << r.pipelined.workspacePeakInUseBytes << " B, sequential "
      << r.sequential.workspacePeakInUseBytes << " B\n";
  for (const auto& c : r.checks)
    out << (c.ok ? "[ok]   " : "[FAIL] ") << c.name << ": " << c.detail << "\n";
  if (!r.verified) out << "(outputs not verified; pass --verify)\n";
  out << "legend: overlap ratio = (T_sequential - T_pipelined) / (T_sequential all-to-all + "
         "T_sequential reduce-scatter), clamped to [0, 1]: the share of the baseline's "
         "communication "
         "time the pipelined kernel hides under compute. Workspace = a2a slots + partial-sum slots "
         "+ "
         "reduce-scatter buffer, allocated per rank.\n";
  char d[32];
  std::snprintf(d, sizeof d, "%016llx", static_cast<unsigned long long>(r.digest()));
  out << "digest: " << d << "\n";
}

namespace {
void phaseRows(std::ostream& out, bool pipelined, const std::vector<A2aMatmulPhase>& phases) {
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

}  // namespace moe

#include <iostream>

#include "core/observe/trace_export.h"
#include "core/util/error.h"
#include "core/util/output_file.h"

namespace moe {
int runA2aMatmulCommand(const Scenario& sc, bool verify, const std::string& traceFile,
                        const std::string& csvFile) {
  // Output paths were checked by the caller (checkOutputPaths) before the run.
  const A2aMatmulReport rep = runA2aMatmulWorkload(sc, verify);
  printA2aMatmulReport(std::cout, rep);
  if (!csvFile.empty())
    writeFileAtomically(csvFile, "--csv", [&](std::ostream& o) { writeA2aMatmulCsv(o, rep); });
  if (!traceFile.empty()) {
    AllocationScope scope("the Chrome trace");
    writeFileAtomically(traceFile, "--trace", [&](std::ostream& o) {
      writeChromeTrace(o, {TraceSource{&rep.pipelinedRun->emulation(), "pipelined"},
                           TraceSource{&rep.sequentialRun->emulation(), "sequential"}});
    });
  }
  return rep.ok() ? 0 : 1;
}
}  // namespace moe
