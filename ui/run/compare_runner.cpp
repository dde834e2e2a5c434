#include "ui/run/compare_runner.h"

#include "core/pipeline/run_report.h"
#include "core/scenario/scenario_json.h"
#include "ui/widgets/palette.h"

namespace moe::ui {

void CompareRunner::run(const Scenario& input) {
  try {
    Scenario sc = input;
    sc.dispatchImpl = DispatchImpl::Both;
    const RunReport rep = runScenario(sc, true);
    CompareResult r;
    r.figureNames = QStringList{tr("total emulated time"), tr("dispatch stage"), tr("bytes over HCCS"), tr("bytes over RDMA"),
                     tr("dispatch buffer memory"), tr("peak ring occupancy"), tr("events"), tr("verification"),
                     tr("run digest")};
    r.figures.assign(r.figureNames.size(), {});
    for (std::size_t i = 0; i < rep.runs.size(); ++i) {
      const LayerRun& run = *rep.runs[i];
      r.impls << QString::fromStdString(toString(run.impl()));
      Time dispatch = 0;
      double hccs = 0, nic = 0;
      std::vector<double> durations;
      for (const StageReport& st : run.stages()) {
        if (st.name.find("dispatch") != std::string::npos && st.name.find("notify") == std::string::npos)
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
      const std::vector<QString> vals = {
          timeText(run.emulation().sim().now()), timeText(dispatch), bytesText(hccs), bytesText(nic),
          bytesText(static_cast<double>(run.commBufferBytes())), bytesText(static_cast<double>(run.peakRingOccupancy())),
          QString::number(run.emulation().sim().eventsRun()),
          dead ? tr("DEADLOCK") : ok ? tr("pass") : tr("FAIL"), QString::number(run.digest(), 16)};
      for (std::size_t f = 0; f < vals.size(); ++f) r.figures[f].push_back(vals[f]);
    }
    bool cross = true;
    for (const VerificationCheck& c : rep.crossChecks) cross = cross && c.ok;
    r.verdict = rep.ok() ? tr("Both designs verified against the golden reference; outputs identical: %1")
                               .arg(cross ? tr("yes") : tr("NO"))
                         : tr("Verification FAILED — see moe-sim run --verify for details");
    emit finished(r);
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

}  // namespace moe::ui
