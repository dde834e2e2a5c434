#include "ui/run/ab_runner.h"

#include "core/observe/ring_occupancy.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_factory.h"
#include "core/util/error.h"
#include "core/util/format_digest.h"
#include "ui/run/warm_memory_given_back.h"

namespace moe::ui {

void AbRunner::run(const Scenario& sc, int design, int side) {
  const WarmMemoryGivenBackAtEnd givenBack;
  AbSide r;
  r.scenario = sc;
  r.design = static_cast<Design>(design);
  try {
    const ResolvedScenario rs = ResolvedScenario::resolve(sc);
    auto run = makeRun(rs, r.design);
    run->runToEnd();
    const RunResult res = run->result();
    r.finished = res.finished;
    r.figureNames << QObject::tr("total time (us)");
    // As moe-sim run prints it: the clock at the end, which includes operations still
    // landing after the last stage's cores finished.
    r.figures.push_back(toMicroseconds(res.end));
    // The buffers the design has: the fused operator's workspace, or the layer's rings and
    // windows.
    if (res.buffers.workspaceBytes > 0) {
      r.figureNames << QObject::tr("workspace per rank (MiB)");
      r.figures.push_back(static_cast<double>(res.buffers.workspaceBytes) / (1 << 20));
    } else {
      r.figureNames << QObject::tr("dispatch buffers (MiB)") << QObject::tr("combine buffers (MiB)")
                    << QObject::tr("peak ring occupancy (KiB)");
      r.figures.push_back(static_cast<double>(res.buffers.dispatchBytes) / (1 << 20));
      r.figures.push_back(static_cast<double>(res.buffers.combineBytes) / (1 << 20));
      r.figures.push_back(static_cast<double>(res.buffers.peakRingOccupancy) / 1024);
    }
    for (const StageReport& st : res.stages) {
      r.stageNames << QString::fromStdString(std::string(st.label()));
      r.stageUs.push_back(toMicroseconds(st.duration()));
    }
    r.figureNames << QObject::tr("RDMA posts") << QObject::tr("events");
    r.figures.push_back(static_cast<double>(res.counters.rdmaPosts));
    r.figures.push_back(static_cast<double>(res.counters.events));
    const Emulation& emu = run->emulation();
    for (const OccupancyPoint& p : ringOccupancyOverTime(emu.observer(), 400))
      r.ringOccupancy.emplace_back(toMicroseconds(p.time), static_cast<double>(p.bytes) / 1024);
    r.digest = QString::fromStdString(formatDigest(res.digest));
    r.timeline = summarizeRun(
        QString("%1: %2").arg(side == 0 ? "A" : "B",
                              QString::fromStdString(std::string(designName(r.design)))),
        emu.observer(), res.end);
    if (!r.finished) r.error = QObject::tr("the run deadlocked");
  } catch (const InputError& e) {
    r.error = QString::fromStdString(e.what());
  } catch (const std::exception& e) {
    r.error = QString::fromStdString(e.what());
  }
  emit finished(side, r);
}

}  // namespace moe::ui
