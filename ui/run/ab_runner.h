#pragma once
// A/B Compare's worker, in its own thread: runs one scenario with one design to the end
// (the run factory, as the live run) and hands back what the A/B view shows side by side:
// key figures, stage durations and the rings' occupancy over time. Side A is the run the
// user pinned, side B the one run after changing anything; both come from here.

#include <QMetaType>
#include <QObject>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <vector>

#include "core/run/design.h"
#include "core/scenario/scenario.h"
#include "ui/run/run_timeline_data.h"
#include "ui/run/scenario_metatype.h"

namespace moe::ui {

struct AbSide {
  Scenario scenario;  // as given (what "stale" compares with the current scenario)
  Design design = Design::Streaming;
  QString error;  // not empty: the run could not be made (InputError text) or failed
  QStringList figureNames;
  std::vector<double> figures;  // one per name; formatted by the view
  QStringList stageNames;
  std::vector<double> stageUs;
  std::vector<QPointF> ringOccupancy;  // (us, KiB held in all rings)
  QString digest;
  RunTimelineData timeline;  // the run on a timeline (A/B draws both on one time axis)
  bool finished = false;     // false: deadlocked
};

class AbRunner : public QObject {
  Q_OBJECT
 public slots:
  // side: 0 for A, 1 for B.
  void run(const moe::Scenario& sc, int design, int side);

 signals:
  void finished(int side, const moe::ui::AbSide& result);
};

}  // namespace moe::ui

Q_DECLARE_METATYPE(moe::ui::AbSide)
