#pragma once
// Every ring a card consumes, one row each: the capacity as a bar with chunk ticks, the
// occupied bytes between head and tail (split in two when they wrap), bytes written but
// not yet published, and markers for head, tail, producer tail and cached head.

#include <QWidget>
#include <memory>

#include "core/observe/snapshot.h"

namespace moe::ui {

class RingStripWidget : public QWidget {
  Q_OBJECT
 public:
  explicit RingStripWidget(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const Snapshot> s, int card);
  void setSelectedRing(int id);
  int rowCount() const { return static_cast<int>(rows_.size()); }
  QSize sizeHint() const override;

 signals:
  void ringClicked(int ringId);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  int rowAt(const QPoint& p) const;
  void paintRing(class QPainter& p, const RingSnap& r, const QRect& row) const;

  std::shared_ptr<const Snapshot> snap_;
  std::vector<int> rows_;  // indices into snap_->rings
  int selected_ = -1;
};

}  // namespace moe::ui
