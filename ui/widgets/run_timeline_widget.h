#pragma once
// One finished run as a compact timeline: its name and length, a band per stage, and per
// role a lane whose height is the share of the role's cores working (dark) and waiting
// (pale). The time scale is set from outside (SharedTimelines), so the timelines of runs
// compared side by side map the same time to the same x.

#include <QWidget>

#include "ui/run/run_timeline_data.h"
#include "ui/widgets/nice_scale.h"
#include "ui/widgets/timeline_widget.h"

namespace moe::ui {

class RunTimelineWidget : public QWidget {
  Q_OBJECT
 public:
  explicit RunTimelineWidget(QWidget* parent = nullptr);
  void setData(RunTimelineData d);
  const RunTimelineData& data() const { return data_; }
  // The shared scale in microseconds and the width of the label column before the plot;
  // only the last of a stack writes the tick values under its lanes.
  void setScale(NiceScale usScale, int labelWidth, bool tickLabels);
  // The pixel <-> time mapping of the plot at the current width.
  TimeAxis axis() const;
  double xAt(Time t) const { return axis().x(static_cast<double>(t)); }
  // The width of the label column this run's lanes need.
  int labelWidthNeeded() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {300, sizeHint().height()}; }

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent* e) override;

 private:
  int rowH() const;
  int laneH() const;
  QFont laneFont() const;
  QString header() const;  // "phased 4756.234 us"
  QString laneLabel(const RunTimelineData::RoleLane& l) const;

  RunTimelineData data_;
  NiceScale scale_;
  int labelW_ = 120;
  bool tickLabels_ = true;
};

}  // namespace moe::ui
