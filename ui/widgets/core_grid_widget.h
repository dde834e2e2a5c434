#pragma once
// The card view's core grid: one cell per AIV/AIC core of a card, filled by role and
// bordered by activity, with a legend. Painted with QPainter so 60+ cores redraw cheaply.

#include <QWidget>
#include <memory>

#include "core/observe/snapshot.h"

namespace moe::ui {

class CoreGridWidget : public QWidget {
  Q_OBJECT
 public:
  explicit CoreGridWidget(QWidget* parent = nullptr);
  void setSnapshot(std::shared_ptr<const Snapshot> s, int card);
  void setSelectedCore(int id);
  QSize sizeHint() const override { return {640, 360}; }
  // Tall enough for cells that fit their core number, in this widget's font (presenter mode
  // enlarges it), so a splitter never squeezes the grid into unnumbered squares.
  QSize minimumSizeHint() const override;

 signals:
  void coreClicked(int coreId);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  struct Cell {
    QRect rect;
    int core;
  };
  void layoutCells();
  int coreAt(const QPoint& p) const;
  // Paints the legend from `top` (only measures without a painter); returns its bottom.
  int paintLegend(class QPainter* p, int top) const;
  int legendHeight() const;

  std::shared_ptr<const Snapshot> snap_;
  int card_ = 0;
  int selected_ = -1;
  std::vector<Cell> cells_;
  int legendTop_ = 0;
  int rows_ = 6;  // cell rows of the card shown (4 AIV + 2 AIC on a 910B)
};

}  // namespace moe::ui
