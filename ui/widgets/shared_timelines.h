#pragma once
// The timelines of runs compared side by side (Compare's designs, A/B's two sides), one
// under the other on one time axis: the same microseconds per pixel and the same axis end
// (the longest run's, rounded up to a round tick), so a run three times longer is drawn
// three times wider and equal times line up.

#include <QWidget>
#include <vector>

#include "ui/run/run_timeline_data.h"

class QLabel;
class QVBoxLayout;

namespace moe::ui {

class RunTimelineWidget;

class SharedTimelines : public QWidget {
  Q_OBJECT
 public:
  explicit SharedTimelines(QWidget* parent = nullptr);
  // One timeline per run, in order; none hides the whole box.
  void setRuns(const std::vector<RunTimelineData>& runs);
  int count() const { return static_cast<int>(timelines_.size()); }
  RunTimelineWidget* timeline(int i) const { return timelines_[static_cast<std::size_t>(i)]; }
  // The shared axis end in microseconds (a round number >= the longest run).
  double axisEndUs() const { return axisEndUs_; }

 private:
  QLabel* caption_;
  QVBoxLayout* list_;
  std::vector<RunTimelineWidget*> timelines_;
  double axisEndUs_ = 0;
};

}  // namespace moe::ui
