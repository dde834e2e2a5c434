#pragma once
// What the worker hands the GUI thread after each slice of work: the latest snapshot,
// plus the activity intervals and metric samples produced since the previous frame.
// Everything is a value; the GUI thread may keep it as long as it likes.

#include <QMetaType>
#include <QString>
#include <vector>

#include "core/observe/snapshot.h"
#include "core/record/observer.h"
#include "ui/run/expert_load.h"
#include "ui/run/metrics_sample.h"
#include "ui/run/scenario_metatype.h"

namespace moe::ui {

struct Frame {
  Snapshot snapshot;
  std::vector<ActivityInterval> newIntervals;
  std::vector<MetricsSample> newSamples;
  bool restart = false;  // a new run (load/reset) began: drop accumulated history
};

struct Verification {
  std::uint64_t runId = 0;
  bool done = false;  // false: the run has not finished, nothing verified yet
  bool ok = false;
  QString summary;  // one line for the status bar
  QString details;  // one line per check
};

void registerMetaTypes();

}  // namespace moe::ui

Q_DECLARE_METATYPE(moe::ui::Frame)
Q_DECLARE_METATYPE(moe::Snapshot)
Q_DECLARE_METATYPE(moe::ui::ExpertLoad)
Q_DECLARE_METATYPE(moe::ui::Verification)
