#pragma once
// The timeline: a Gantt of the observer's activity log, grouped by card. What it shows (bars,
// roles, lanes, overlap figures) is core's TimelineModel; this widget only lays it out and
// draws it. Lanes are either
// one per core (colour = activity) or one per role on each card (height = share of that
// role's cores working, pale = waiting). When the run has communication roles (a2a,
// reduce-scatter) next to compute (gemm), summary lanes on top show when any core of each
// kind was working and where communication was hidden under compute or exposed.
// Wheel zooms around the cursor, dragging pans, a click moves the scrubber.

#include <QWidget>
#include <memory>
#include <vector>

#include "core/observe/snapshot.h"
#include "core/observe/timeline_model.h"
#include "ui/widgets/timeline_legend.h"

namespace moe::ui {

// Pixel <-> time mapping of the plot area; pure, so it is tested on its own.
struct TimeAxis {
  double t0 = 0;       // ps at x = left
  double psPerPx = 1;  // zoom
  int left = 0;
  double x(double t) const { return left + (t - t0) / psPerPx; }
  double t(double x) const { return t0 + (x - left) * psPerPx; }
};

class TimelineWidget : public QWidget {
  Q_OBJECT
 public:
  enum class Grouping { PerCore, ByRole };

  explicit TimelineWidget(QWidget* parent = nullptr);
  void clear();
  void append(const std::vector<ActivityInterval>& iv);
  void setSnapshot(std::shared_ptr<const Snapshot> s);
  void setScrubTime(Time t);
  Time scrubTime() const { return scrub_; }
  void setGrouping(Grouping g);
  Grouping grouping() const { return grouping_; }
  void fitAll();
  const TimeAxis& axis() const { return axis_; }
  std::size_t intervalCount() const { return model_.intervalCount(); }
  const TimelineModel& model() const { return model_; }
  int laneCount() const;
  // What the key under the timeline must explain for the lanes now laid out.
  TimelineLegendContent legendContent() const;

  // Closed activity so far: time any communication core (a2a, reduce-scatter) was working,
  // and how much of it some compute core (gemm) was working too.
  bool hasOverlapSummary() const { return model_.hasOverlapSummary(); }
  Time communicationTime() const { return model_.communicationTime(); }
  Time hiddenCommunicationTime() const { return model_.hiddenCommunicationTime(); }

 signals:
  void scrubbed(Time t);
  // The lanes were laid out again (grouping, new roles, new run): the key may change.
  void lanesRebuilt();

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  using Bar = TimelineBar;
  using Summary = TimelineSummary;
  // A model lane placed on the widget.
  struct Lane : TimelineLane {
    int top = 0;  // y without the scroll offset
    int height = 0;
  };
  void applyFit();
  void rebuildLanes();
  int laneAt(int y) const;
  void paintCoreLane(class QPainter& p, const Lane& lane, int y, Time tLeft, Time tRight) const;
  void paintRoleLane(QPainter& p, const Lane& lane, int y, Time tLeft, Time tRight) const;
  void paintSummaryLane(QPainter& p, const Lane& lane, int y, Time tLeft, Time tRight) const;
  // The parts of paintEvent, in painting order: lanes, the share of communication hidden,
  // then over them the time axis, the stage marks and names (the scrubber last).
  void paintLanes(QPainter& p, Time tLeft, Time tRight) const;
  void paintHiddenShare(QPainter& p) const;
  void paintTimeAxis(QPainter& p, Time tLeft, Time tRight) const;
  void paintStageMarks(QPainter& p) const;
  QString laneLabel(const Lane& lane) const;
  QString laneTooltip(const Lane& lane, Time t) const;

  std::shared_ptr<const Snapshot> snap_;
  TimelineModel model_;
  std::vector<Lane> lanes_;
  bool lanesDirty_ = true;
  Grouping grouping_ = Grouping::PerCore;
  TimeAxis axis_;
  bool fitted_ = false;
  bool fitPending_ = false;
  int yOffset_ = 0;
  Time scrub_ = 0;
  QPoint pressPos_;
  QPoint lastPos_;
  bool dragging_ = false;
};

}  // namespace moe::ui
