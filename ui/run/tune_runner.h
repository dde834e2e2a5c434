#pragma once
// The workbench's "Tune" action, in its own thread: runs core's tuneStreaming on the current
// scenario (candidates in parallel, as `moe-sim tune` does), reports progress, and hands the
// tuned scenario back for the window to load. Cancelled when the window closes.

#include <QObject>
#include <QString>
#include <atomic>

#include "core/scenario/scenario.h"
#include "ui/run/scenario_metatype.h"

namespace moe::ui {

class TuneRunner : public QObject {
  Q_OBJECT
 public:
  // Asks a running search to stop after its current candidates (any thread).
  void cancel() { cancel_ = true; }

 public slots:
  void run(const moe::Scenario& sc, int budget);

 signals:
  void progress(int done, int total);
  // The tuned scenario and a one-paragraph summary (streaming before/after, phased).
  void finished(const moe::Scenario& tuned, const QString& summary);
  void failed(const QString& message);

 private:
  std::atomic<bool> cancel_{false};
};

}  // namespace moe::ui
