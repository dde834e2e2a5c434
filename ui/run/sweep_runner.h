#pragma once
// The Sweep view's worker, in its own thread: runs every point of a sweep (core's
// runSweepPoint, the same rows as `moe-sim sweep`) on the machine's cores through
// parallelMap, reports progress as points finish, and stops early when cancelled (points
// under way finish; the rest are skipped). The GUI thread never waits on it.

#include <QMetaType>
#include <QObject>
#include <atomic>
#include <memory>
#include <vector>

#include "core/studies/sweep_row.h"
#include "core/studies/sweep_spec.h"

namespace moe::ui {

// What a finished (or cancelled) sweep hands back: the spec it ran and one entry per point,
// empty for a point the cancel skipped.
struct SweepResult {
  std::shared_ptr<const SweepSpec> spec;
  std::vector<std::vector<SweepRow>> points;
  bool cancelled = false;
};

class SweepRunner : public QObject {
  Q_OBJECT
 public:
  // Thread-safe: called from the GUI thread while run() works in the runner's thread.
  void cancel() { cancel_ = true; }
  // Clears a previous cancel. Called by whoever queues run(), before queueing it, so a
  // cancel that arrives before run() starts is not lost.
  void rearm() { cancel_ = false; }

 public slots:
  void run(std::shared_ptr<const moe::SweepSpec> spec);

 signals:
  void progress(int done, int total);
  void finished(std::shared_ptr<const moe::ui::SweepResult> result);

 private:
  std::atomic<bool> cancel_{false};
};

}  // namespace moe::ui

Q_DECLARE_METATYPE(std::shared_ptr<const moe::SweepSpec>)
Q_DECLARE_METATYPE(std::shared_ptr<const moe::ui::SweepResult>)
