#pragma once
// The timeline: a per-core Gantt of activities grouped by card, from the observer's
// activity log. Wheel zooms around the cursor, dragging pans, a click moves the scrubber.

#include <QWidget>
#include <memory>
#include <vector>

#include "core/observe/observer.h"
#include "ui/run/snapshot.h"

namespace moe::ui {

// Pixel <-> time mapping of the plot area; pure, so it is tested on its own.
struct TimeAxis {
  double t0 = 0;        // ps at x = left
  double psPerPx = 1;   // zoom
  int left = 0;
  double x(double t) const { return left + (t - t0) / psPerPx; }
  double t(double x) const { return t0 + (x - left) * psPerPx; }
};

class TimelineWidget : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineWidget(QWidget* parent = nullptr);
  void clear();
  void append(const std::vector<ActivityInterval>& iv);
  void setSnapshot(std::shared_ptr<const Snapshot> s);
  void setScrubTime(Time t);
  Time scrubTime() const { return scrub_; }
  void fitAll();
  const TimeAxis& axis() const { return axis_; }
  std::size_t intervalCount() const { return count_; }

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
  void applyFit();
  int rowTop(int row) const;
  int rowOfY(int y) const;
  void rebuildRows();

  std::shared_ptr<const Snapshot> snap_;
  std::vector<std::vector<Bar>> bars_;  // per core id
  std::vector<int> rowCore_;            // row -> core, cores with any activity, in id order
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
