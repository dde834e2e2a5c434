#pragma once
// The timeline: a Gantt of the observer's activity log, grouped by card. Lanes are either
// one per core (colour = activity) or one per role on each card (height = share of that
// role's cores working, pale = waiting). When the run has communication roles (a2a,
// reduce-scatter) next to compute (gemm), summary lanes on top show when any core of each
// kind was working and where communication was hidden under compute or exposed.
// Wheel zooms around the cursor, dragging pans, a click moves the scrubber.

#include <QWidget>
#include <memory>
#include <vector>

#include "core/observe/interval_union.h"
#include "core/observe/snapshot.h"
#include "core/record/observer.h"

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
  std::size_t intervalCount() const { return count_; }
  int laneCount() const;

  // Closed activity so far: time any communication core (a2a, reduce-scatter) was working,
  // and how much of it some compute core (gemm) was working too.
  bool hasOverlapSummary() const { return hasComm_ && compute_.size() > 0; }
  Time communicationTime() const { return comm_.measure(); }
  Time hiddenCommunicationTime() const { return comm_.overlap(compute_); }

 signals:
  void scrubbed(Time t);

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  struct Bar {
    Time start, end;
    Activity activity;
    Role role;
  };
  enum class Summary { Compute, Communication, Overlap };
  struct Lane {
    enum class Kind { Core, Role, Summary } kind = Kind::Core;
    int card = -1;  // Core and Role lanes
    int core = -1;  // Core lanes
    Role role = Role::Idle;
    Summary summary = Summary::Compute;
    std::vector<int> cores;  // Role lanes: the cores that ever had this role on this card
    int top = 0;             // y without the scroll offset
    int height = 0;
  };
  void applyFit();
  void rebuildLanes();
  int laneAt(int y) const;
  void paintCoreLane(class QPainter& p, const Lane& lane, int y, Time tLeft, Time tRight) const;
  void paintRoleLane(QPainter& p, const Lane& lane, int y, Time tLeft, Time tRight) const;
  void paintSummaryLane(QPainter& p, const Lane& lane, int y, Time tLeft, Time tRight) const;
  QString laneLabel(const Lane& lane) const;
  QString laneTooltip(const Lane& lane, Time t) const;

  std::shared_ptr<const Snapshot> snap_;
  std::vector<std::vector<Bar>> bars_;    // per core id
  std::vector<std::uint32_t> coreRoles_;  // per core id: bit mask of the roles it had
  std::vector<Lane> lanes_;
  bool lanesDirty_ = true;
  Grouping grouping_ = Grouping::PerCore;
  IntervalUnion comm_, compute_;
  bool hasComm_ = false;
  std::size_t count_ = 0;
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
