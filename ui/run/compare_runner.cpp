#include "ui/run/compare_runner.h"

#include "core/run/a2a_matmul_report.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"
#include "core/scenario/scenario_json.h"
#include "core/util/format_digest.h"
#include "ui/run/warm_memory_given_back.h"
#include "ui/style/palette.h"

namespace moe::ui {

namespace {
CompareResult compareA2aMatmul(const ResolvedScenario& rs) {
  const A2aMatmulReport rep = runA2aMatmulWorkload(rs, true);
  CompareResult r;
  r.impls = QStringList{"pipelined", "sequential"};
  r.figureNames =
      QStringList{QObject::tr("total emulated time"), QObject::tr("all-to-all phase"),
                  QObject::tr("matmul phase"),        QObject::tr("reduce-scatter phase"),
                  QObject::tr("time vs sequential"),  QObject::tr("overlap ratio"),
                  QObject::tr("workspace per rank"),  QObject::tr("events"),
                  QObject::tr("verification"),        QObject::tr("run digest")};
  r.figures.assign(static_cast<std::size_t>(r.figureNames.size()), {});
  r.chartTitle = QObject::tr("Emulated time by phase (us)");
  r.stacked = true;
  r.stageNames = QStringList{"all-to-all", "matmul", "reduce-scatter", "fused (all three)"};
  const double seq = static_cast<double>(rep.sequential.run.end);
  for (const RunResult* k : {&rep.pipelined.run, &rep.sequential.run}) {
    const bool pipelined = k == &rep.pipelined.run;
    auto phase = [&](StageId id) { return static_cast<double>(k->stageTime(id)) / 1e6; };
    auto phaseText = [&](StageId id) {
      return pipelined ? QObject::tr("(fused)") : timeText(k->stageTime(id));
    };
    const std::vector<QString> vals = {
        timeText(k->end),
        phaseText(StageId::AllToAll),
        phaseText(StageId::Matmul),
        phaseText(StageId::ReduceScatter),
        QString::number(seq > 0 ? static_cast<double>(k->end) / seq : 0.0, 'f', 3),
        pipelined ? QString::number(rep.overlapRatio(), 'f', 3) : QObject::tr("(baseline)"),
        bytesText(static_cast<double>(k->buffers.workspaceBytes)),
        QString::number(k->counters.events),
        !k->finished              ? QObject::tr("DEADLOCK")
        : k->verificationPassed() ? QObject::tr("pass")
                                  : QObject::tr("FAIL"),
        QString::fromStdString(formatDigest(k->digest))};
    for (std::size_t f = 0; f < vals.size(); ++f) r.figures[f].push_back(vals[f]);
    r.stageUs.push_back({phase(StageId::AllToAll), phase(StageId::Matmul),
                         phase(StageId::ReduceScatter), phase(StageId::A2aMatmulRs)});
    const auto& kernel = pipelined ? rep.pipelinedRun : rep.sequentialRun;
    if (kernel)
      r.timelines.push_back(
          summarizeRun(pipelined ? QStringLiteral("pipelined") : QStringLiteral("sequential"),
                       kernel->emulation().observer(), k->end));
  }
  r.verdict =
      rep.ok()
          ? QObject::tr(
                "Both kernels verified against the reference GEMM; pipelined takes %1 of the "
                "sequential time, overlap ratio %2 (the share of the baseline's communication "
                "time hidden under compute)")
                .arg(seq > 0 ? static_cast<double>(rep.pipelined.run.end) / seq : 0.0, 0, 'f', 3)
                .arg(rep.overlapRatio(), 0, 'f', 3)
          : QObject::tr(
                "Verification FAILED — see moe-sim run --workload alltoall-matmul-rs --verify");
  return r;
}
}  // namespace

void CompareRunner::run(const Scenario& input) {
  const WarmMemoryGivenBackAtEnd givenBack;
  try {
    Scenario sc = input;
    sc.dispatchImpl = DesignSelection::all();  // compare every design, whatever the scenario runs
    const ResolvedScenario resolved = ResolvedScenario::resolve(sc);
    if (resolved.workload() == WorkloadKind::AlltoallMatmulRs) {
      emit finished(compareA2aMatmul(resolved));
      return;
    }
    const RunReport rep = runScenario(resolved, true, Fault::None, {}, nullptr, 0, /*why=*/true);
    CompareResult r;
    r.figureNames = QStringList{tr("total emulated time"),
                                tr("dispatch stage"),
                                tr("bytes over HCCS / switch"),
                                tr("bytes over RDMA"),
                                tr("dispatch buffer memory"),
                                tr("peak ring occupancy"),
                                tr("events"),
                                tr("verification"),
                                tr("run digest")};
    r.figures.assign(r.figureNames.size(), {});
    for (std::size_t i = 0; i < rep.results.size(); ++i) {
      const RunResult& run = rep.results[i];
      r.impls << QString::fromStdString(run.design);
      double hccs = 0, nic = 0;
      std::vector<double> durations;
      for (const StageReport& st : run.stages) {
        hccs += st.hccsBytes;
        nic += st.nicBytes;
        // The designs name their dispatch and combine stages differently; pair them.
        if (i == 0) r.stageNames << QString::fromStdString(std::string(st.label()));
        durations.push_back(static_cast<double>(st.duration()) / 1e6);
      }
      r.stageUs.push_back(durations);
      const std::vector<QString> vals = {
          timeText(run.end),
          timeText(run.stageTime(StageId::Dispatch)),
          bytesText(hccs),
          bytesText(nic),
          bytesText(static_cast<double>(run.buffers.dispatchBytes)),
          bytesText(static_cast<double>(run.buffers.peakRingOccupancy)),
          QString::number(run.counters.events),
          run.deadlocked             ? tr("DEADLOCK")
          : run.verificationPassed() ? tr("pass")
                                     : tr("FAIL"),
          QString::fromStdString(formatDigest(run.digest))};
      for (std::size_t f = 0; f < vals.size(); ++f) r.figures[f].push_back(vals[f]);
      if (i < rep.runs.size() && rep.runs[i])
        r.timelines.push_back(summarizeRun(QString::fromStdString(run.design),
                                           rep.runs[i]->emulation().observer(), run.end));
      if (i < rep.why.size())
        for (const CriticalPathAttribution& a : rep.why[i])
          if (a.stage == StageId::Dispatch || a.stage == StageId::Combine)
            r.why << QString::fromStdString(run.design + " " + describeCriticalPath(a));
    }
    bool cross = true;
    for (const VerificationCheck& c : rep.crossChecks) cross = cross && c.ok;
    // Named from the designs that ran: two (phased, streaming) or three (and flat).
    r.chartTitle = tr("Stage durations (us): %1").arg(r.impls.join(tr(" vs ")));
    const QString which =
        r.impls.size() == 2 ? tr("Both designs") : tr("All %1 designs").arg(r.impls.size());
    r.verdict = rep.ok() ? tr("%1 verified against the golden reference; outputs identical: %2")
                               .arg(which, cross ? tr("yes") : tr("NO"))
                         : tr("Verification FAILED — see moe-sim run --verify for details");
    emit finished(r);
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

}  // namespace moe::ui
