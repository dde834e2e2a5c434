#pragma once
// The worker threads of the workbench and the runner living in each: the live emulation
// (RunController), Compare, Tune, Sweep and A/B. The GUI thread only posts requests to them
// (QMetaObject::invokeMethod) and takes their results as queued signals, so it never waits
// on a run. Destroying this stops the threads: running searches and sweeps are cancelled.

#include <QThread>

namespace moe::ui {

class AbRunner;
class CompareRunner;
class RunController;
class SweepRunner;
class TuneRunner;

class BackgroundRuns {
 public:
  BackgroundRuns();
  ~BackgroundRuns();
  BackgroundRuns(const BackgroundRuns&) = delete;
  BackgroundRuns& operator=(const BackgroundRuns&) = delete;

  RunController* controller() const { return controller_; }
  CompareRunner* compare() const { return compare_; }
  TuneRunner* tune() const { return tune_; }
  SweepRunner* sweep() const { return sweep_; }
  AbRunner* ab() const { return ab_; }

 private:
  QThread worker_;
  QThread compareThread_;
  QThread tuneThread_;
  QThread sweepThread_;
  QThread abThread_;
  RunController* controller_;
  CompareRunner* compare_;
  TuneRunner* tune_;
  SweepRunner* sweep_;
  AbRunner* ab_;
};

}  // namespace moe::ui
