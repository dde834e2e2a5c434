// The critical-path attribution (core/observe/critical_path.h) on programs small enough to
// walk by hand, and on a real layer: shares add up to the stage, and recording the causes
// changes no event.

#include <gtest/gtest.h>

#include <numeric>

#include "core/machine/causal_log.h"
#include "core/observe/critical_path.h"
#include "core/run/layer_run.h"
#include "core/runtime/emulation.h"
#include "core/runtime/stage_runner.h"
#include "tests/core/small_streaming_scenario.h"

using namespace moe;

namespace {

Scenario twoServers() {
  Scenario s;
  s.cluster.servers = 2;
  return s;
}

// Runs `launch` as one stage with a causal log, and returns the stage's attribution.
CriticalPathAttribution runStage(Emulation& emu, const std::function<void(Latch&)>& launch) {
  CausalLog log(emu.machine().coreCount());
  emu.machine().setCausalLog(&log);
  StageRunner runner(emu);
  emu.sim().spawn(runner.run(StageId::Combine, "combine", launch), "host");
  emu.sim().run();
  emu.machine().setCausalLog(nullptr);
  EXPECT_EQ(runner.reports().size(), 1u);
  return attributeCriticalPath(log, emu.machine(), runner.reports().front());
}

const CriticalPathItem* find(const CriticalPathAttribution& a, const std::string& label) {
  for (const auto& it : a.items)
    if (it.label == label) return &it;
  return nullptr;
}

void expectSharesSumToOne(const CriticalPathAttribution& a) {
  Time t = 0;
  double share = 0;
  for (const auto& it : a.items) {
    t += it.time;
    share += it.share;
  }
  EXPECT_EQ(t, a.duration());
  EXPECT_NEAR(share, 1.0, 1e-9);
}

Task worker(AiCore& core, Time work, Word* flag) {
  co_await core.scalarWork(work);
  if (flag) core.writeWord(*flag, 1);  // not awaited: the program's end fences it
}

Task waiter(AiCore& core, Word& flag, Time work) {
  while (flag.value == 0)
    co_await core.changeOf(flag, 0, Activity::WaitData, [] { return std::string("flag"); });
  co_await core.scalarWork(work);
}

Task sender(AiCore& core, Region dst, Region src) {
  co_await core.rdmaWrite(dst, src);
}

}  // namespace

// A sender works 10 us and raises a flag; a receiver waits for it, then works 5 us. By
// hand: the stage is 10 us + the flag's write latency (local GM) + the poll latency + 5 us,
// and its critical path is exactly those four parts: the receiver's 5 us, the flag's
// latency, and the sender's 10 us, reached through the flag.
TEST(CriticalPath, FollowsAWaitToTheCoreWhoseWriteReleasedIt) {
  Emulation emu(twoServers());
  Machine& m = emu.machine();
  Word& flag = *m.makeWord(0, "ready");
  const Time latency = nanoseconds(m.hw().gmLatencyNs) + nanoseconds(m.hw().pollLatencyNs);
  const auto a = runStage(emu, [&](Latch& l) {
    l.add(2);
    emu.launch(m.aiv(0, 0), Role::Sender, worker(m.aiv(0, 0), 10 * kUs, &flag), &l);
    emu.launch(m.aiv(0, 1), Role::Receiver, waiter(m.aiv(0, 1), flag, 5 * kUs), &l);
  });
  EXPECT_EQ(a.duration(), 15 * kUs + latency);
  EXPECT_EQ(a.lastCore, m.aiv(0, 1).name());
  EXPECT_EQ(a.hops, 1);
  ASSERT_EQ(a.items.size(), 3u);
  EXPECT_EQ(a.items[0].label, "sender cores polling and scalar work");
  EXPECT_EQ(a.items[0].time, 10 * kUs);
  EXPECT_EQ(a.items[1].label, "receiver cores polling and scalar work");
  EXPECT_EQ(a.items[1].time, 5 * kUs);
  EXPECT_EQ(a.items[2].label, "wait-data on ready: signal latency (write, poll)");
  EXPECT_EQ(a.items[2].time, latency);
  EXPECT_EQ(a.items[2].kind, CriticalPathItem::Kind::Signal);
  expectSharesSumToOne(a);
  EXPECT_EQ(describeCriticalPath(a, 1),
            "combine 15.7 us: sender cores busy 63.7% (polling and scalar work 63.7%); other "
            "36.3%");
}

// Two cores of card 0 write 1 MiB each over RDMA to two cards of the other server at the
// same time: they share card 0's NIC tx, so each transfer takes twice its uncontended time.
// By hand: the critical path is one sender's wait (post, wire, landing), of which the
// uncontended wire time's worth is the NIC's saturation.
TEST(CriticalPath, ChargesATransfersSlowdownToItsSaturatedLink) {
  Emulation emu(twoServers());
  Machine& m = emu.machine();
  const std::int64_t bytes = 1 << 20;
  const int far0 = m.hw().cardsPerServer, far1 = far0 + 1;
  Buffer* src0 = m.allocGm(0, bytes, "src0", true);
  Buffer* src1 = m.allocGm(0, bytes, "src1", true);
  Buffer* dst0 = m.allocGm(far0, bytes, "dst0", true);
  Buffer* dst1 = m.allocGm(far1, bytes, "dst1", true);
  const auto a = runStage(emu, [&](Latch& l) {
    l.add(2);
    emu.launch(m.aiv(0, 0), Role::Sender, sender(m.aiv(0, 0), whole(dst0), whole(src0)), &l);
    emu.launch(m.aiv(0, 1), Role::Sender, sender(m.aiv(0, 1), whole(dst1), whole(src1)), &l);
  });
  const double nicBytesPerPs = m.hw().nicGBps * 1e9 / 1e12;
  const double uncontended = static_cast<double>(bytes) / nicBytesPerPs;
  const CriticalPathItem* nic = find(a, "NIC tx of card 0 saturated");
  ASSERT_NE(nic, nullptr) << describeCriticalPath(a, 8);
  EXPECT_NEAR(static_cast<double>(nic->time), uncontended, 2.0);
  EXPECT_EQ(nic->kind, CriticalPathItem::Kind::Link);
  const CriticalPathItem* work = find(a, "sender cores sending RDMA writes");
  ASSERT_NE(work, nullptr) << describeCriticalPath(a, 8);
  EXPECT_EQ(work->ops, 1);
  EXPECT_EQ(work->bytes, bytes);
  // The rest: the post, the uncontended wire time and the landing latency.
  EXPECT_NEAR(static_cast<double>(work->time), static_cast<double>(a.duration()) - uncontended,
              2.0);
  EXPECT_EQ(a.hops, 0);
  expectSharesSumToOne(a);
  EXPECT_NEAR(nic->share, 0.5, 0.05);
}

// On a real streaming layer every stage's path covers the stage, and keeping the causal
// log changes neither the events nor the digest.
TEST(CriticalPath, CoversEveryStageOfALayerWithoutChangingTheRun) {
  Scenario sc = test::smallStreamingScenario(2, 2, "critical-path");
  sc.model.hidden = 64;
  const ResolvedScenario rs = ResolvedScenario::resolve(sc);
  LayerRun plain(rs, Design::Streaming);
  plain.runToEnd();
  LayerRun traced(rs, Design::Streaming);
  CausalLog log(traced.emulation().machine().coreCount());
  traced.emulation().machine().setCausalLog(&log);
  traced.runToEnd();
  traced.emulation().machine().setCausalLog(nullptr);
  EXPECT_EQ(traced.digest(), plain.digest());
  EXPECT_EQ(traced.emulation().sim().eventsRun(), plain.emulation().sim().eventsRun());
  bool sawForwarder = false;
  for (const StageReport& st : traced.stages()) {
    const auto a = attributeCriticalPath(log, traced.emulation().machine(), st);
    expectSharesSumToOne(a);
    for (const auto& it : a.items) {
      EXPECT_EQ(it.label.find("cause not recorded"), std::string::npos) << st.name;
      if (st.id == StageId::Combine && it.label.starts_with("forwarder cores")) sawForwarder = true;
    }
  }
  EXPECT_TRUE(sawForwarder);
}
