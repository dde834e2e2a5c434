#include "core/observe/timeline_model.h"

namespace moe {

namespace {
constexpr std::size_t kMaxBarsPerCore = 200000;  // bounds memory on very long runs
const std::vector<TimelineBar> kNoBars;
}  // namespace

void TimelineModel::clear() {
  *this = TimelineModel{};
}

void TimelineModel::ensureCore(int core) {
  if (core < static_cast<int>(bars_.size())) return;
  bars_.resize(static_cast<std::size_t>(core) + 1);
  roles_.resize(static_cast<std::size_t>(core) + 1, 0);
}

void TimelineModel::noteRole(int core, Role r) {
  ensureCore(core);
  const std::uint32_t bit = 1u << static_cast<int>(r);
  if (roles_[static_cast<std::size_t>(core)] & bit) return;
  roles_[static_cast<std::size_t>(core)] |= bit;
  lanesChanged_ = true;
}

void TimelineModel::append(const std::vector<ActivityInterval>& intervals) {
  for (const ActivityInterval& a : intervals) {
    // A core counts in a role once it ran a program in it, even one that never had to work
    // (all its spans idle or done): the card view counts it, so the role lane must too.
    if (a.role != Role::Idle) noteRole(a.core, a.role);
    // Idle and done spans are the absence of work: leaving them out keeps the chart readable.
    if (a.activity == Activity::Idle || a.activity == Activity::Done || a.end <= a.start) continue;
    ensureCore(a.core);
    auto& v = bars_[static_cast<std::size_t>(a.core)];
    if (v.empty()) lanesChanged_ = true;  // a new core lane
    if (v.size() < kMaxBarsPerCore) v.push_back(TimelineBar{a.start, a.end, a.activity, a.role});
    if (isWorking(a.activity)) {
      if (isCommunication(a.role)) {
        comm_.add(a.start, a.end);
        if (!hasComm_) lanesChanged_ = true;
        hasComm_ = true;
      }
      if (a.role == Role::Gemm) compute_.add(a.start, a.end);
    }
    ++count_;
  }
}

void TimelineModel::noteRoles(const Snapshot& s) {
  for (const CoreSnap& c : s.cores)
    if (c.role != Role::Idle) noteRole(c.id, c.role);
}

std::vector<TimelineLane> TimelineModel::lanes(TimelineGrouping g, const Snapshot& s) {
  lanesChanged_ = false;
  std::vector<TimelineLane> out;
  if (hasComm_)
    for (TimelineSummary k :
         {TimelineSummary::Compute, TimelineSummary::Communication, TimelineSummary::Overlap}) {
      TimelineLane l;
      l.kind = TimelineLane::Kind::Summary;
      l.summary = k;
      out.push_back(l);
    }
  auto cardOf = [&s](int core) {
    return core < static_cast<int>(s.cores.size()) ? s.cores[static_cast<std::size_t>(core)].card
                                                   : 0;
  };
  // Cores with any activity, grouped by card in id order (ids are card-major).
  std::vector<std::vector<int>> perCard;
  for (std::size_t c = 0; c < bars_.size(); ++c) {
    if (bars_[c].empty()) continue;
    const int card = cardOf(static_cast<int>(c));
    if (card >= static_cast<int>(perCard.size()))
      perCard.resize(static_cast<std::size_t>(card) + 1);
    perCard[static_cast<std::size_t>(card)].push_back(static_cast<int>(c));
  }
  for (int card = 0; card < static_cast<int>(perCard.size()); ++card) {
    const std::vector<int>& cores = perCard[static_cast<std::size_t>(card)];
    if (g == TimelineGrouping::PerCore) {
      for (int core : cores) {
        TimelineLane l;
        l.kind = TimelineLane::Kind::Core;
        l.card = card;
        l.core = core;
        out.push_back(l);
      }
      continue;
    }
    // By role: every core of the card that ran a program in the role, worked or not.
    for (int r = 0; r < static_cast<int>(Role::Count); ++r) {
      if (static_cast<Role>(r) == Role::Idle) continue;
      TimelineLane l;
      l.kind = TimelineLane::Kind::Role;
      l.card = card;
      l.role = static_cast<Role>(r);
      for (std::size_t c = 0; c < roles_.size(); ++c)
        if (cardOf(static_cast<int>(c)) == card && (roles_[c] & (1u << r)))
          l.cores.push_back(static_cast<int>(c));
      if (!l.cores.empty()) out.push_back(std::move(l));
    }
  }
  return out;
}

const std::vector<TimelineBar>& TimelineModel::bars(int core) const {
  return core >= 0 && core < static_cast<int>(bars_.size()) ? bars_[static_cast<std::size_t>(core)]
                                                            : kNoBars;
}

std::uint32_t TimelineModel::roleMask(int core) const {
  return core >= 0 && core < static_cast<int>(roles_.size())
             ? roles_[static_cast<std::size_t>(core)]
             : 0;
}

IntervalUnion TimelineModel::communicationAt(const Snapshot& s) const {
  IntervalUnion u = comm_;
  for (const CoreSnap& c : s.cores)
    if (isWorking(c.activity) && isCommunication(c.role)) u.add(c.since, s.now);
  return u;
}

IntervalUnion TimelineModel::computeAt(const Snapshot& s) const {
  IntervalUnion u = compute_;
  for (const CoreSnap& c : s.cores)
    if (isWorking(c.activity) && c.role == Role::Gemm) u.add(c.since, s.now);
  return u;
}

}  // namespace moe
