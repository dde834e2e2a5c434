#include "ui/run/ab_runner.h"

#include <algorithm>

#include "core/observe/ring_occupancy.h"
#include "core/run/layer_run.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/run/run_report.h"
#include "core/util/error.h"
#include "core/util/format_digest.h"

namespace moe::ui {

void AbRunner::run(const Scenario& sc, int design, int side) {
  AbSide r;
  r.scenario = sc;
  r.design = static_cast<Design>(design);
  try {
    const ResolvedScenario rs = ResolvedScenario::resolve(sc);
    auto run = makeRun(rs, r.design);
    run->runToEnd();
    r.finished = run->finished();
    const Emulation& emu = run->emulation();
    Time end = 0;
    r.figureNames << QObject::tr("total time (us)");
    r.figures.push_back(0);
    // Stage durations come from the layer's stage reports (the fused workload's phases).
    std::vector<StageReport> stages;
    if (auto* layer = dynamic_cast<LayerRun*>(run.get())) {
      stages = layer->stages();
      r.figureNames << QObject::tr("dispatch buffers (MiB)") << QObject::tr("combine buffers (MiB)")
                    << QObject::tr("peak ring occupancy (KiB)");
      r.figures.push_back(static_cast<double>(layer->commBufferBytes()) / (1 << 20));
      r.figures.push_back(static_cast<double>(layer->combineBufferBytes()) / (1 << 20));
      r.figures.push_back(static_cast<double>(layer->peakRingOccupancy()) / 1024);
    } else if (auto* fused = dynamic_cast<A2aMatmulRun*>(run.get())) {
      stages = fused->result().phases;
    }
    for (const StageReport& st : stages) {
      r.stageNames << QString::fromStdString(stageLabel(st.name));
      r.stageUs.push_back(toMicroseconds(st.duration()));
      end = std::max(end, st.end);
    }
    // As moe-sim run prints it: the clock at the end, which includes operations still
    // landing after the last stage's cores finished.
    r.figures[0] = toMicroseconds(std::max(end, emu.sim().now()));
    r.figureNames << QObject::tr("RDMA posts") << QObject::tr("events");
    r.figures.push_back(static_cast<double>(emu.machine().rdmaPosts));
    r.figures.push_back(static_cast<double>(emu.sim().eventsRun()));
    for (const OccupancyPoint& p : ringOccupancyOverTime(emu.observer(), 400))
      r.ringOccupancy.emplace_back(toMicroseconds(p.time), static_cast<double>(p.bytes) / 1024);
    r.digest = QString::fromStdString(formatDigest(run->digest()));
    if (!r.finished) r.error = QObject::tr("the run deadlocked");
  } catch (const InputError& e) {
    r.error = QString::fromStdString(e.what());
  } catch (const std::exception& e) {
    r.error = QString::fromStdString(e.what());
  }
  emit finished(side, r);
}

}  // namespace moe::ui
