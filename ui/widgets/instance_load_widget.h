#pragma once
// Token slots per physical expert instance after MoeUpdateExpert, drawn bar by bar and
// grouped by rank. Each bar takes its logical expert's colour, so the replicas of one hot
// expert read as one colour spread over several ranks; a tick marks what the instance would
// carry without balancing (identity placement). QPainter rather than Qt Charts: a QBarSet
// has one colour for all its bars.

#include <QWidget>

#include "ui/run/expert_load.h"
#include "ui/style/expert_colors.h"

namespace moe::ui {

class InstanceLoadWidget : public QWidget {
  Q_OBJECT
 public:
  explicit InstanceLoadWidget(QWidget* parent = nullptr);
  void setLoad(const ExpertLoad& load, const ExpertColors& colors);
  QSize sizeHint() const override { return {640, 220}; }
  // The instance under a widget position, or -1 (tooltips, tests).
  int instanceAt(QPoint p) const;
  // Where the bars are drawn: margins from the font, so larger text keeps its room.
  QRectF plotRect() const;

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent* e) override;

 private:
  int lineH() const;
  ExpertLoad load_;
  ExpertColors colors_;
};

}  // namespace moe::ui
