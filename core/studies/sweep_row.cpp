#include "core/studies/sweep_row.h"

#include <new>
#include <optional>

#include "core/reference/a2a_matmul_rs.h"
#include "core/run/reference_chain.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/run/run_report.h"
#include "core/studies/sweep_point.h"
#include "core/util/error.h"
#include "core/util/format_digest.h"

namespace moe {

namespace {

// The stages each workload's designs run, by stageLabel (design suffixes dropped).
std::vector<std::string> stageNames(WorkloadKind w) {
  if (w == WorkloadKind::AlltoallMatmulRs)
    return {"a2a-matmul-rs", "all-to-all", "matmul", "reduce-scatter"};
  return {"update-expert", "layout", "dispatch-notify", "dispatch", "experts", "combine"};
}

SweepRow emptyRow(const SweepSpec& spec, std::size_t index,
                  const std::vector<nlohmann::json>& values, Design design) {
  SweepRow row;
  for (const std::string& c : sweepColumns(spec)) row[c] = nullptr;
  row["point"] = index;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) row[spec.axes[a].field] = values[a];
  row["design"] = std::string(designName(design));
  row["verification"] = "skipped";
  return row;
}

std::string firstLine(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// The columns every design fills from its run's result.
void putResult(SweepRow& row, const RunResult& res) {
  for (const StageReport& st : res.stages)
    row[std::string(st.label()) + "_us"] = toMicroseconds(st.duration());
  // The emulated clock at the end, as moe-sim run prints it: it includes operations still
  // landing after the last stage's cores finished.
  row["total_us"] = toMicroseconds(res.end);
  row["rdma_posts"] = res.counters.rdmaPosts;
  row["events"] = res.counters.events;
  row["digest"] = formatDigest(res.digest);
  if (res.deadlocked) {
    row["status"] = "deadlock";
    row["message"] = "stage '" + res.deadlockStage + "': " + firstLine(res.deadlockDiagnosis);
  }
}

std::string verdict(const std::vector<VerificationCheck>& checks) {
  for (const auto& c : checks)
    if (!c.ok) return "failed";
  return "passed";
}

void runLayer(const SweepSpec& spec, const ResolvedScenario& rs, std::vector<SweepRow>& rows) {
  std::optional<ReferenceLayer> ref;
  if (spec.verify) {
    AllocationScope scope("the golden reference (verify)");
    ref = computeReference(rs);
  }
  for (std::size_t d = 0; d < spec.designs.size(); ++d) {
    AllocationScope scope("the emulated cluster's GM and event log");
    SweepRow& row = rows[d];
    auto run = makeLayerRun(rs, spec.designs[d]);
    run->runToEnd();
    const RunResult res = run->result();
    putResult(row, res);
    row["dispatch_buffer_bytes"] = res.buffers.dispatchBytes;
    row["combine_buffer_bytes"] = res.buffers.combineBytes;
    row["peak_ring_occupancy_bytes"] = res.buffers.peakRingOccupancy;
    if (!res.deadlocked) {
      row["status"] = "ok";
      if (ref) row["verification"] = verdict(run->verify(*ref));
    }
    run->releaseTensors();
  }
}

void runFused(const SweepSpec& spec, const ResolvedScenario& rs, std::vector<SweepRow>& rows) {
  const A2aMatmulReference* ref = spec.verify ? &rs.a2aReference()->get() : nullptr;
  for (std::size_t d = 0; d < spec.designs.size(); ++d) {
    SweepRow& row = rows[d];
    auto run = makeA2aMatmulRun(rs, spec.designs[d]);
    run->runToEnd();
    const A2aMatmulRunResult res = run->fusedResult();
    putResult(row, res.run);
    if (!res.run.deadlocked && res.run.finished) {
      row["status"] = res.completed.ok ? "ok" : "error";
      if (!res.completed.ok) row["message"] = res.completed.detail;
      if (ref) row["verification"] = verdict({res.completed, run->verify(*ref)});
    }
  }
}

}  // namespace

std::vector<std::string> sweepColumns(const SweepSpec& spec) {
  std::vector<std::string> cols{"point"};
  for (const SweepAxis& a : spec.axes) cols.push_back(a.field);
  for (const char* c : {"design", "status", "message"}) cols.emplace_back(c);
  for (const std::string& c : sweepFigureColumns(spec)) cols.push_back(c);
  cols.emplace_back("verification");
  cols.emplace_back("digest");
  return cols;
}

std::vector<std::string> sweepFigureColumns(const SweepSpec& spec) {
  std::vector<std::string> cols;
  for (const std::string& s : stageNames(spec.base.workload.kind)) cols.push_back(s + "_us");
  for (const char* c : {"total_us", "dispatch_buffer_bytes", "combine_buffer_bytes",
                        "peak_ring_occupancy_bytes", "rdma_posts", "events"})
    cols.emplace_back(c);
  return cols;
}

std::vector<SweepRow> runSweepPoint(const SweepSpec& spec, std::size_t index) {
  const std::vector<nlohmann::json> values = sweepPointValues(spec, index);
  std::vector<SweepRow> rows;
  for (Design d : spec.designs) rows.push_back(emptyRow(spec, index, values, d));
  auto fail = [&](const std::string& status, const std::string& message) {
    // Rows are rebuilt so no figure of a half-finished design survives next to the failure.
    for (std::size_t d = 0; d < rows.size(); ++d) {
      rows[d] = emptyRow(spec, index, values, spec.designs[d]);
      rows[d]["status"] = status;
      rows[d]["message"] = message;
    }
  };
  try {
    const ResolvedScenario rs = ResolvedScenario::resolve(sweepPointScenario(spec, values));
    if (rs.workload() == WorkloadKind::AlltoallMatmulRs)
      runFused(spec, rs, rows);
    else
      runLayer(spec, rs, rows);
  } catch (const InputError& e) {
    fail("invalid", e.what());
  } catch (const std::bad_alloc&) {
    const char* what = AllocationScope::innermost();
    fail("error", std::string("out of memory: ") + (what ? what : "the run's working data"));
  } catch (const std::exception& e) {
    fail("error", e.what());
  }
  return rows;
}

}  // namespace moe
