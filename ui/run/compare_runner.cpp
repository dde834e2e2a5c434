#include "ui/run/compare_runner.h"

#include "core/run/a2a_matmul_report.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"
#include "core/scenario/scenario_json.h"
#include "core/util/format_digest.h"
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
  auto phase = [](const A2aMatmulRunResult& k, const std::string& name) {
    for (const auto& p : k.phases)
      if (p.name == name) return static_cast<double>(p.end - p.start) / 1e6;
    return 0.0;
  };
  const double seq = static_cast<double>(rep.sequential.time);
  for (const A2aMatmulRunResult* k : {&rep.pipelined, &rep.sequential}) {
    bool ok = true;
    for (const VerificationCheck& c : rep.checks)
      if (c.name.rfind(k->pipelined ? "pipelined" : "sequential", 0) == 0) ok = ok && c.ok;
    auto phaseText = [&](const std::string& name) {
      return k->pipelined ? QObject::tr("(fused)")
                          : timeText(static_cast<long long>(phase(*k, name) * 1e6));
    };
    const std::vector<QString> vals = {
        timeText(k->time),
        phaseText("all-to-all"),
        phaseText("matmul"),
        phaseText("reduce-scatter"),
        QString::number(seq > 0 ? static_cast<double>(k->time) / seq : 0.0, 'f', 3),
        k->pipelined ? QString::number(rep.overlapRatio(), 'f', 3) : QObject::tr("(baseline)"),
        bytesText(static_cast<double>(k->workspaceBytes)),
        QString::number(k->events),
        !k->finished ? QObject::tr("DEADLOCK")
        : ok         ? QObject::tr("pass")
                     : QObject::tr("FAIL"),
        QString::fromStdString(formatDigest(k->digest))};
    for (std::size_t f = 0; f < vals.size(); ++f) r.figures[f].push_back(vals[f]);
    r.stageUs.push_back({phase(*k, "all-to-all"), phase(*k, "matmul"), phase(*k, "reduce-scatter"),
                         phase(*k, "a2a-matmul-rs")});
  }
  r.verdict =
      rep.ok()
          ? QObject::tr(
                "Both kernels verified against the reference GEMM; pipelined takes %1 of the "
                "sequential time, overlap ratio %2 (the share of the baseline's communication "
                "time hidden under compute)")
                .arg(seq > 0 ? static_cast<double>(rep.pipelined.time) / seq : 0.0, 0, 'f', 3)
                .arg(rep.overlapRatio(), 0, 'f', 3)
          : QObject::tr(
                "Verification FAILED — see moe-sim run --workload alltoall-matmul-rs --verify");
  return r;
}
}  // namespace

void CompareRunner::run(const Scenario& input) {
  try {
    Scenario sc = input;
    sc.dispatchImpl = DispatchImpl::All;  // compare every design, whatever the scenario runs
    const ResolvedScenario resolved = ResolvedScenario::resolve(sc);
    if (resolved.workload() == WorkloadKind::AlltoallMatmulRs) {
      emit finished(compareA2aMatmul(resolved));
      return;
    }
    const RunReport rep = runScenario(resolved, true);
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
    for (std::size_t i = 0; i < rep.runs.size(); ++i) {
      const LayerRun& run = *rep.runs[i];
      r.impls << QString::fromStdString(toString(run.impl()));
      Time dispatch = 0;
      double hccs = 0, nic = 0;
      std::vector<double> durations;
      for (const StageReport& st : run.stages()) {
        if (st.name.find("dispatch") != std::string::npos &&
            st.name.find("notify") == std::string::npos)
          dispatch += st.duration();
        hccs += st.hccsBytes;
        nic += st.nicBytes;
        // The designs name their dispatch and combine stages differently; pair them.
        if (i == 0) r.stageNames << QString::fromStdString(stageLabel(st.name));
        durations.push_back(static_cast<double>(st.duration()) / 1e6);
      }
      r.stageUs.push_back(durations);
      bool ok = true;
      if (i < rep.checks.size())
        for (const VerificationCheck& c : rep.checks[i]) ok = ok && c.ok;
      const bool dead = i < rep.deadlocks.size() && !rep.deadlocks[i].empty();
      const std::vector<QString> vals = {timeText(run.emulation().sim().now()),
                                         timeText(dispatch),
                                         bytesText(hccs),
                                         bytesText(nic),
                                         bytesText(static_cast<double>(run.commBufferBytes())),
                                         bytesText(static_cast<double>(run.peakRingOccupancy())),
                                         QString::number(run.emulation().sim().eventsRun()),
                                         dead ? tr("DEADLOCK")
                                         : ok ? tr("pass")
                                              : tr("FAIL"),
                                         QString::fromStdString(formatDigest(run.digest()))};
      for (std::size_t f = 0; f < vals.size(); ++f) r.figures[f].push_back(vals[f]);
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
