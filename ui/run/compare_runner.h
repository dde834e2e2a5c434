#pragma once
// Compare mode's worker, in its own thread: for the MoE layer it runs phased, streaming and flat
// dispatch on the same scenario and gating (core's runScenario, verified); for the fused
// AlltoAll-Matmul-ReduceScatter it runs the pipelined kernel and the sequential baseline
// (runA2aMatmulWorkload, verified). It hands back the key figures as values.

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <vector>

#include "core/scenario/scenario.h"
#include "ui/run/run_timeline_data.h"
#include "ui/run/scenario_metatype.h"

namespace moe::ui {

struct CompareResult {
  QStringList impls;  // "phased", "streaming", "flat" or "pipelined", "sequential"
  QStringList figureNames;
  std::vector<std::vector<QString>> figures;  // [figure][impl]
  QStringList stageNames;
  std::vector<std::vector<double>> stageUs;  // [impl][stage] durations in us
  QString verdict;                           // verification and cross-check summary
  QString chartTitle;
  // Stacked: one bar per design made of its stages (designs whose stages differ, like the
  // fused kernel's one phase against the baseline's three); else grouped by stage.
  bool stacked = false;
  // Per design, what made up its dispatch's and its combine's time, from their critical
  // paths (core/observe/critical_path.h), one line each: "streaming combine 0.5 ms: ...".
  QStringList why;
  // Per design, its run as a timeline (drawn on one time axis with the others).
  std::vector<RunTimelineData> timelines;
};

class CompareRunner : public QObject {
  Q_OBJECT
 public slots:
  void run(const moe::Scenario& sc);

 signals:
  void finished(const moe::ui::CompareResult& r);
  void failed(const QString& message);
};

}  // namespace moe::ui

Q_DECLARE_METATYPE(moe::ui::CompareResult)
