#pragma once
// The Timeline tab: a lane choice above the Gantt and its key below.

#include <QWidget>

class QComboBox;

namespace moe::ui {

class TimelineWidget;

class TimelineTab : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineTab(QWidget* parent = nullptr);
  TimelineWidget* timeline() const { return timeline_; }
  // The fused operator reads best by role (its overlap); the MoE layer core by core.
  void setLanesFor(bool fusedOperator);

 private:
  TimelineWidget* timeline_;
  QComboBox* lanes_;
};

}  // namespace moe::ui
