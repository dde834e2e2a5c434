#include "ui/run/background_runs.h"

#include "ui/run/ab_runner.h"
#include "ui/run/compare_runner.h"
#include "ui/run/frame.h"
#include "ui/run/run_controller.h"
#include "ui/run/sweep_runner.h"
#include "ui/run/tune_runner.h"

namespace moe::ui {

namespace {
// Moves `runner` into `thread`, which deletes it when it stops, and starts the thread.
template <typename Runner>
Runner* startIn(QThread& thread, Runner* runner) {
  runner->moveToThread(&thread);
  QObject::connect(&thread, &QThread::finished, runner, &QObject::deleteLater);
  thread.start();
  return runner;
}
}  // namespace

BackgroundRuns::BackgroundRuns() {
  registerMetaTypes();
  qRegisterMetaType<moe::ui::CompareResult>();
  controller_ = startIn(worker_, new RunController);
  compare_ = startIn(compareThread_, new CompareRunner);
  tune_ = startIn(tuneThread_, new TuneRunner);
  qRegisterMetaType<std::shared_ptr<const moe::SweepSpec>>();
  qRegisterMetaType<std::shared_ptr<const moe::ui::SweepResult>>();
  sweep_ = startIn(sweepThread_, new SweepRunner);
  qRegisterMetaType<moe::ui::AbSide>();
  ab_ = startIn(abThread_, new AbRunner);
}

BackgroundRuns::~BackgroundRuns() {
  // The controller may be inside a slice: ask the worker loop to stop and wait for it.
  worker_.quit();
  worker_.wait();
  compareThread_.quit();
  compareThread_.wait();
  tune_->cancel();  // a search stops after its running candidates
  tuneThread_.quit();
  tuneThread_.wait();
  // A sweep under way stops after its running points.
  sweep_->cancel();
  sweepThread_.quit();
  sweepThread_.wait();
  abThread_.quit();
  abThread_.wait();
}

}  // namespace moe::ui
