#include "ui/run/run_timeline_data.h"

#include <algorithm>
#include <array>
#include <set>

#include "core/record/observer.h"

namespace moe::ui {

RunTimelineData summarizeRun(const QString& name, const Observer& obs, Time end, int buckets) {
  RunTimelineData d;
  d.name = name;
  d.end = std::max<Time>(end, 1);
  d.buckets = std::max(1, buckets);
  d.truncated = obs.activities().dropped() > 0;
  for (const StageMark& m : obs.stages())
    d.stages.push_back({QString::fromStdString(m.name), m.start, m.end < 0 ? d.end : m.end});
  constexpr int kRoles = static_cast<int>(Role::Count);
  std::array<std::set<int>, kRoles> cores;
  std::array<std::vector<double>, kRoles> work, wait;
  const double width = static_cast<double>(d.end) / d.buckets;
  // Adds the part of [s, e) in each bucket, as a fraction of the bucket, to `acc`.
  auto add = [&](std::vector<double>& acc, Time s, Time e) {
    if (acc.empty()) acc.assign(static_cast<std::size_t>(d.buckets), 0.0);
    const double a = static_cast<double>(std::max<Time>(s, 0)) / width;
    const double b = std::min(static_cast<double>(e) / width, static_cast<double>(d.buckets));
    for (int i = static_cast<int>(a); i < d.buckets && i < b; ++i)
      acc[static_cast<std::size_t>(i)] += std::min<double>(b, i + 1) - std::max<double>(a, i);
  };
  for (const ActivityInterval& iv : obs.activities().items()) {
    if (iv.role == Role::Idle) continue;
    const int r = static_cast<int>(iv.role);
    cores[r].insert(iv.core);
    if (isWorking(iv.activity)) add(work[r], iv.start, iv.end);
    if (isWaiting(iv.activity)) add(wait[r], iv.start, iv.end);
  }
  for (int r = 0; r < kRoles; ++r) {
    if (cores[r].empty()) continue;
    RunTimelineData::RoleLane lane;
    lane.role = static_cast<Role>(r);
    lane.cores = static_cast<int>(cores[r].size());
    const double n = lane.cores;
    lane.working.assign(static_cast<std::size_t>(d.buckets), 0.f);
    lane.waiting.assign(static_cast<std::size_t>(d.buckets), 0.f);
    for (std::size_t i = 0; i < lane.working.size(); ++i) {
      if (!work[r].empty()) lane.working[i] = static_cast<float>(std::min(1.0, work[r][i] / n));
      if (!wait[r].empty())
        lane.waiting[i] = static_cast<float>(std::min(1.0 - lane.working[i], wait[r][i] / n));
    }
    // A role busy (working or waiting) under 2% of its cores' time is left out: its lane
    // reads as empty and costs the stack a row a projector cannot spare.
    double busy = 0;
    for (std::size_t i = 0; i < lane.working.size(); ++i) busy += lane.working[i] + lane.waiting[i];
    if (busy < 0.02 * d.buckets) continue;
    d.roles.push_back(std::move(lane));
  }
  return d;
}

}  // namespace moe::ui
