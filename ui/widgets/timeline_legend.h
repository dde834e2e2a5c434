#pragma once
// The key under the timeline: what a colour means in the lane grouping on screen. Per-core
// lanes are coloured by activity; role lanes by role (dark = share of the role's cores
// working, pale = share waiting); the summary lanes of the fused workload green where
// communication is hidden under compute, red where it is exposed.

#include <QLabel>
#include <vector>

#include "core/record/states.h"

namespace moe::ui {

struct TimelineLegendContent {
  bool perCore = true;
  std::vector<Role> roles;  // the roles with a lane, in lane order (role grouping)
  bool summary = false;     // the fused workload's compute/communication lanes
};

// Rich text for the key; a pure function so a test can read it.
QString timelineLegendHtml(const TimelineLegendContent& c);

class TimelineLegend : public QLabel {
  Q_OBJECT
 public:
  explicit TimelineLegend(QWidget* parent = nullptr);
  void setContent(const TimelineLegendContent& c);
};

}  // namespace moe::ui
