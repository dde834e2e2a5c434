// Bottleneck classes with a shared virtual clock (core/machine/flow_classes) against the
// per-flow model they replace: every flow keeps its own bytes left, progressed at each rate
// change, and its own completion time, re-timed at each rate change. Random joins, leaves,
// moves between classes and rate changes, with completions run in time order: every
// member's bytes left agree within 1e-9 relative, and every completion within 1 ps.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/machine/flow_classes.h"

using namespace moe;

namespace {

// The per-flow model: what FlowNetwork does for each transfer today.
struct PerFlow {
  int cls = FlowClasses::kNone;
  double remaining = 0;
  Time last = 0;  // when `remaining` was last progressed
  Time finish = 0;
};

struct Model {
  std::vector<PerFlow> flows;
  std::vector<double> rate;

  void progress(PerFlow& f, Time now) const {
    f.remaining = std::max(0.0, f.remaining - rate[f.cls] * static_cast<double>(now - f.last));
    f.last = now;
  }
  void retime(PerFlow& f, Time now) const {
    if (rate[f.cls] > 0) f.finish = now + checkedPs(f.remaining / rate[f.cls]);
  }
  void setRate(int c, Time now, double r) {
    for (PerFlow& f : flows)
      if (f.cls == c) progress(f, now);
    rate[c] = r;
    for (PerFlow& f : flows)
      if (f.cls == c) retime(f, now);
  }
  void join(int c, int flow, Time now, double bytes) {
    PerFlow& f = flows[flow];
    f = PerFlow{c, bytes, now, 0};
    retime(f, now);
  }
  double leave(int flow, Time now) {
    PerFlow& f = flows[flow];
    progress(f, now);
    f.cls = FlowClasses::kNone;
    return f.remaining;
  }
  // The earliest completion over every class with a positive rate, or -1.
  Time nextFinish() const {
    Time t = -1;
    for (const PerFlow& f : flows)
      if (f.cls != FlowClasses::kNone && rate[f.cls] > 0 && (t < 0 || f.finish < t)) t = f.finish;
    return t;
  }
};

struct Checker {
  FlowClasses& fc;
  Model& m;
  double worstBytes = 0;
  Time worstFinish = 0;
  int completions = 0;  // so a history that never completes anything cannot pass

  void compare(Time now) {
    for (int k = 0; k < static_cast<int>(m.flows.size()); ++k) {
      PerFlow f = m.flows[static_cast<std::size_t>(k)];
      ASSERT_EQ(fc.classOf(k), f.cls) << "flow " << k;
      if (f.cls == FlowClasses::kNone) continue;
      m.progress(f, now);
      const double got = fc.remaining(k, now);
      worstBytes = std::max(worstBytes, std::abs(got - f.remaining) / std::max(1.0, f.remaining));
    }
    for (int c = 0; c < static_cast<int>(m.rate.size()); ++c) {
      if (fc.size(c) == 0 || !(fc.rate(c) > 0)) continue;
      Time want = -1;
      for (const PerFlow& f : m.flows)
        if (f.cls == c && (want < 0 || f.finish < want)) want = f.finish;
      const Time got = fc.firstFinish(c);
      worstFinish = std::max(worstFinish, std::abs(got - want));
      // The class's first member is one that finishes then in the per-flow model too.
      const Time its = m.flows[static_cast<std::size_t>(fc.first(c))].finish;
      worstFinish = std::max(worstFinish, std::abs(its - want));
    }
  }
};

// One random history: `ops` operations on `classes` classes over `slots` flow slots.
void runHistory(std::uint64_t seed, int classes, int slots, int ops, Checker& check) {
  std::mt19937_64 rng(seed);
  FlowClasses& fc = check.fc;
  Model& m = check.m;
  fc.reserve(slots, classes);
  m.flows.assign(static_cast<std::size_t>(slots), PerFlow{});
  m.rate.assign(static_cast<std::size_t>(classes), 0.0);
  // Few distinct rates (bytes/ps of 25..1600 GB/s links, split k ways), so ties are common.
  const double base[] = {0.025, 0.056, 0.1, 1.6};
  auto randomRate = [&] { return base[rng() % 4] / static_cast<double>(1 + rng() % 8); };
  for (int c = 0; c < classes; ++c) {
    fc.setRate(c, 0, base[c % 4]);
    m.rate[static_cast<std::size_t>(c)] = base[c % 4];
  }
  Time now = 0;
  for (int op = 0; op < ops; ++op) {
    // Completions due before the next operation run first, in time order.
    const Time next = now + static_cast<Time>(rng() % 2000) * kNs;
    for (Time t = m.nextFinish(); t >= 0 && t <= next; t = m.nextFinish()) {
      now = t;
      int due = -1;
      for (int k = 0; k < slots; ++k) {
        const PerFlow& f = m.flows[static_cast<std::size_t>(k)];
        if (f.cls != FlowClasses::kNone && m.rate[f.cls] > 0 && f.finish == t) due = k;
      }
      const int c = m.flows[static_cast<std::size_t>(due)].cls;
      ASSERT_LE(std::abs(fc.firstFinish(c) - t), 1) << "seed " << seed;
      const double a = fc.leave(due, now), b = m.leave(due, now);
      ++check.completions;
      // Due now: at most a picosecond's worth of bytes is left in either model.
      ASSERT_LE(std::max(a, b), m.rate[static_cast<std::size_t>(c)] * 1.0 + 1e-6)
          << "seed " << seed;
    }
    now = next;
    const int flow = static_cast<int>(rng() % static_cast<std::uint64_t>(slots));
    const int c = static_cast<int>(rng() % static_cast<std::uint64_t>(classes));
    const int kind = static_cast<int>(rng() % 4);
    if (m.flows[static_cast<std::size_t>(flow)].cls == FlowClasses::kNone) {
      const double bytes = 1024 + static_cast<double>(rng() % (1 << 20));
      fc.join(c, flow, now, bytes);
      m.join(c, flow, now, bytes);
    } else if (kind == 0) {  // ends early (cancelled) or finishes with bytes left elsewhere
      ASSERT_NEAR(fc.leave(flow, now), m.leave(flow, now), 1e-6);
    } else if (kind == 1) {  // its bottleneck changes: it moves, keeping its bytes left
      const double left = fc.leave(flow, now);
      m.leave(flow, now);
      fc.join(c, flow, now, left);
      m.join(c, flow, now, m.flows[static_cast<std::size_t>(flow)].remaining);
    } else {  // the class's share changes (sometimes to the same value)
      const double r = randomRate();
      fc.setRate(c, now, r);
      m.setRate(c, now, r);
    }
    check.compare(now);
  }
}

}  // namespace

TEST(FlowClasses, MatchesThePerFlowModelWithinOnePicosecond) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    FlowClasses fc;
    Model m;
    Checker check{fc, m};
    runHistory(seed, 1 + static_cast<int>(seed % 5), 8 + static_cast<int>(seed % 40), 1500, check);
    if (HasFatalFailure()) return;
    EXPECT_LE(check.worstBytes, 1e-9) << "seed " << seed;
    EXPECT_LE(check.worstFinish, 1) << "seed " << seed;
    EXPECT_GT(check.completions, 300) << "seed " << seed;
  }
}

TEST(FlowClasses, ARateChangeKeepsTagsAndMovesTheOneFinish) {
  FlowClasses fc;
  fc.reserve(3, 1);
  fc.setRate(0, 0, 1.0);    // 1 byte/ps
  fc.join(0, 0, 0, 1000);   // finishes at 1000 ps
  fc.join(0, 1, 200, 500);  // tag 700: finishes at 700 ps
  EXPECT_EQ(fc.first(0), 1);
  EXPECT_EQ(fc.firstFinish(0), 700);
  fc.setRate(0, 400, 0.5);  // both members slow down from 400 ps on
  EXPECT_DOUBLE_EQ(fc.remaining(0, 400), 600);
  EXPECT_DOUBLE_EQ(fc.remaining(1, 400), 300);
  EXPECT_EQ(fc.firstFinish(0), 1000);  // 400 + 300 / 0.5
  EXPECT_DOUBLE_EQ(fc.leave(1, 1000), 0);
  EXPECT_EQ(fc.firstFinish(0), 1600);  // 400 + 600 / 0.5
  EXPECT_EQ(fc.classOf(1), FlowClasses::kNone);
  EXPECT_THROW(fc.leave(1, 1000), std::logic_error);
  EXPECT_THROW(fc.join(0, 0, 1000, 1), std::logic_error);
}

TEST(FlowClasses, AnEmptiedClassRestartsItsClock) {
  FlowClasses fc;
  fc.reserve(1, 1);
  fc.setRate(0, 0, 2.0);
  fc.join(0, 0, 0, 4e6);
  EXPECT_DOUBLE_EQ(fc.leave(0, 2'000'000), 0);
  fc.join(0, 0, 5'000'000, 10);  // a new class: finish 5 ns + 10 / 2 ps, no stale clock
  EXPECT_EQ(fc.firstFinish(0), 5'000'005);
  EXPECT_DOUBLE_EQ(fc.remaining(0, 5'000'000), 10);
}

// nearFirst walks only the heap's subtree within the bound, yet finds every member in it.
TEST(FlowClasses, NearFirstListsExactlyTheMembersWithinTheSlackOfTheFirst) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 50; ++round) {
    FlowClasses fc;
    const int n = 1 + static_cast<int>(rng() % 200);
    fc.reserve(n, 1);
    fc.setRate(0, 0, 1.0);
    std::vector<double> left;
    for (int f = 0; f < n; ++f) {
      left.push_back(static_cast<double>(1000 + rng() % 64));  // many equal tags
      fc.join(0, f, 0, left.back());
    }
    for (int f = 0; f < n; f += 3) fc.leave(f, 0);  // holes refilled from the heap's end
    const double slack = static_cast<double>(rng() % 8);
    double least = 1e300;
    for (int f = 0; f < n; ++f)
      if (fc.classOf(f) == 0) least = std::min(least, left[static_cast<std::size_t>(f)]);
    std::vector<int> want;
    for (int f = 0; f < n; ++f)
      if (fc.classOf(f) == 0 && left[static_cast<std::size_t>(f)] <= least + slack + 1e-9 * least)
        want.push_back(f);
    std::vector<int> got;
    fc.nearFirst(0, slack, got);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << "round " << round;
  }
}
