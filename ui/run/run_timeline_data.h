#pragma once
// One finished run reduced to what a compact timeline draws: its stages and, per role, the
// share of that role's cores working and waiting in each of a fixed number of time buckets.
// Compare and A/B draw one per run, all on one time axis (ui/widgets/shared_timelines.h),
// so a run three times longer is drawn three times wider.

#include <QString>
#include <vector>

#include "core/engine/time.h"
#include "core/record/states.h"

namespace moe {
class Observer;
}

namespace moe::ui {

struct RunTimelineData {
  QString name;  // the design, or "A: streaming"
  Time end = 0;  // the run's last time: the timeline's length
  struct Stage {
    QString name;
    Time start = 0, end = 0;
  };
  std::vector<Stage> stages;
  struct RoleLane {
    Role role = Role::Idle;
    int cores = 0;               // cores that ever had this role
    std::vector<float> working;  // per bucket: share of the role's cores at work, 0..1
    std::vector<float> waiting;  // per bucket: share blocked (ring space, data, barrier)
  };
  std::vector<RoleLane> roles;  // in role order; roles busy under 2% of the run left out
  int buckets = 0;              // each bucket covers end / buckets
  // The bounded activity log dropped its oldest intervals: the early lanes are incomplete.
  bool truncated = false;
};

// `end`: the run's end (a stage still open at the end is closed there).
RunTimelineData summarizeRun(const QString& name, const Observer& obs, Time end, int buckets = 600);

}  // namespace moe::ui
