// The discrete-event engine and the flow-level bandwidth model (DESIGN.md §1.2).

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "core/engine/simulator.h"
#include "core/machine/causal_log.h"
#include "core/machine/flow_network.h"
#include "core/runtime/emulation.h"

using namespace moe;

namespace {
void record(void* ctx, std::uint64_t arg) {
  static_cast<std::vector<int>*>(ctx)->push_back(static_cast<int>(arg));
}

// The queue tests' reference: event ids by (time, insertion number), replayed in key order.
using ReferenceOrder = std::map<std::pair<Time, std::uint64_t>, std::uint64_t>;
std::vector<std::uint64_t> inKeyOrder(const ReferenceOrder& reference) {
  std::vector<std::uint64_t> ids;
  for (const auto& [key, id] : reference) ids.push_back(id);
  return ids;
}

// A random schedule of re-armable timers beside the queue, mirrored in a reference keyed by
// (time, insertion). W supplies `static void fire(void*, std::uint64_t)`.
template <typename W>
struct TimerWorld {
  Simulator sim;
  std::mt19937_64 rng;
  std::vector<std::uint64_t> ran;
  ReferenceOrder reference;
  std::vector<std::pair<Time, std::uint64_t>> armedKey;  // by timer: its reference key
  std::vector<TimerId> timers;
  std::uint64_t inserted = 0;
  explicit TimerWorld(std::uint64_t seed, int count) : rng(seed) {
    for (int t = 0; t < count; ++t) {
      timers.push_back(sim.newTimer());
      armedKey.emplace_back(0, ~std::uint64_t{0});
    }
  }
  void arm(int t, Time when) {
    if (armedKey[t].second != ~std::uint64_t{0}) reference.erase(armedKey[t]);
    armedKey[t] = {when, inserted++};
    reference.emplace(armedKey[t], static_cast<std::uint64_t>(t));
    sim.setTimer(timers[t], when,
                 Action{&W::fire, static_cast<W*>(this), static_cast<std::uint64_t>(t)});
  }
};
}  // namespace

TEST(EventQueue, EqualTimeEventsRunInInsertionOrderAndTimeNeverGoesBack) {
  Simulator sim;
  std::vector<int> order;
  sim.at(50, Action{&record, &order, 3});
  sim.at(10, Action{&record, &order, 1});
  sim.at(50, Action{&record, &order, 4});
  sim.at(10, Action{&record, &order, 2});
  sim.at(0, Action{&record, &order, 0});
  Time last = 0;
  while (sim.step()) {
    EXPECT_GE(sim.now(), last);
    last = sim.now();
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_THROW(sim.at(10, Action{&record, &order, 9}), std::logic_error);
}

// The queue splits "now" events (a FIFO) from later ones (a 4-ary heap). Against a plain
// reference, a std::multimap on (time, insertion number): random events that schedule more
// events, many of them at the current instant, must run in exactly the same order.
TEST(EventQueue, MatchesAPlainTimeThenInsertionOrderReferenceOnRandomSchedules) {
  struct World {
    Simulator sim;
    std::mt19937_64 rng{7};
    std::vector<std::uint64_t> ran;
    std::uint64_t nextId = 0;
    int budget = 20000;
    // The reference: (time, insertion number) -> id, replayed in key order afterwards.
    ReferenceOrder reference;
    std::uint64_t inserted = 0;
    void schedule(Time t) {
      const std::uint64_t id = nextId++;
      reference.emplace(std::make_pair(t, inserted++), id);
      sim.at(t, Action{&World::fire, this, id});
    }
    static void fire(void* self, std::uint64_t id) {
      auto* w = static_cast<World*>(self);
      w->ran.push_back(id);
      const int children = static_cast<int>(w->rng() % 3);
      for (int c = 0; c < children && w->budget > 0; ++c, --w->budget) {
        const std::uint64_t pick = w->rng() % 4;  // half of them at the current instant
        const Time dt = pick < 2 ? 0 : static_cast<Time>(w->rng() % (pick == 2 ? 5 : 1000));
        w->schedule(w->sim.now() + dt);
      }
    }
  } w;
  for (int i = 0; i < 64; ++i) w.schedule(static_cast<Time>(w.rng() % 100));
  while (w.sim.step()) {
  }
  const std::vector<std::uint64_t> expected = inKeyOrder(w.reference);
  ASSERT_GT(expected.size(), 1000u);
  EXPECT_EQ(w.ran, expected);
}

// Timers (a transfer's end) are re-armed and cancelled in place. Against the same kind of
// reference: re-arming erases the old entry and inserts a new one; each timer fires at most
// once per arming, in (time, insertion) order with the plain events.
constexpr std::uint64_t kPlain = 1u << 20;  // event ids below this are timer indices

TEST(EventQueue, ReArmedAndCancelledTimersRunOnceAtTheirLastTimeInOrder) {
  struct World : TimerWorld<World> {
    World() : TimerWorld(11, 32) {}
    int budget = 20000;
    void cancel(int t) {
      if (armedKey[t].second != ~std::uint64_t{0}) reference.erase(armedKey[t]);
      armedKey[t].second = ~std::uint64_t{0};
      sim.cancelTimer(timers[t]);
    }
    static void fire(void* self, std::uint64_t id) {
      auto* w = static_cast<World*>(self);
      w->ran.push_back(id);
      if (id < kPlain) w->armedKey[id].second = ~std::uint64_t{0};
      for (int c = 0; c < 3 && w->budget > 0; ++c, --w->budget) {
        const int t = static_cast<int>(w->rng() % w->timers.size());
        const Time when = w->sim.now() + static_cast<Time>(w->rng() % 50);
        switch (w->rng() % 4) {
          case 0:
            w->cancel(t);
            break;
          case 1: {  // a plain event
            const std::uint64_t plain = kPlain + w->inserted;
            w->reference.emplace(std::make_pair(when, w->inserted++), plain);
            w->sim.at(when, Action{&World::fire, w, plain});
            break;
          }
          default:
            w->arm(t, when);
        }
      }
    }
  } w;
  for (int t = 0; t < 32; ++t) w.arm(t, static_cast<Time>(w.rng() % 100));
  // The reference replays in key order; entries are only added at or after the clock, and
  // erased before they would run, so its key order is the order the queue must produce.
  while (w.sim.step()) {
  }
  const std::vector<std::uint64_t> expected = inKeyOrder(w.reference);
  ASSERT_GT(w.ran.size(), 1000u);
  EXPECT_EQ(w.ran, expected);
}

// The queue gives back capacity once it is mostly empty (after the layout stage's million
// pending landings): it renumbers the pending events' slots and shrinks its heap. Two bursts
// far above the size where that starts, with timers pending through both and events that
// schedule more while the queue drains, must still run in exactly (time, insertion) order.
TEST(EventQueue, OrderHoldsWhileTheQueueGivesBackCapacityBetweenBursts) {
  struct World {
    Simulator sim;
    std::mt19937_64 rng{23};
    std::vector<std::uint64_t> ran;
    ReferenceOrder reference;
    std::uint64_t inserted = 0;
    int budget = 30000;
    void schedule(Time t, std::uint64_t id) {
      reference.emplace(std::make_pair(t, inserted++), id);
      sim.at(t, Action{&World::fire, this, id});
    }
    static void fire(void* self, std::uint64_t id) {
      auto* w = static_cast<World*>(self);
      w->ran.push_back(id);
      if (w->budget > 0 && w->rng() % 4 == 0) {
        --w->budget;
        w->schedule(w->sim.now() + static_cast<Time>(w->rng() % 3), kPlain + w->inserted);
      }
    }
    void burst(Time from, int n) {
      for (int i = 0; i < n; ++i)
        schedule(from + 1 + static_cast<Time>(rng() % 100000), kPlain + inserted);
    }
  } w;
  std::vector<TimerId> timers;
  for (std::uint64_t t = 0; t < 8; ++t) {
    timers.push_back(w.sim.newTimer());
    const Time when = 50000 + static_cast<Time>(t) * 40000;  // some after the first burst
    w.reference.emplace(std::make_pair(when, w.inserted++), t);
    w.sim.setTimer(timers.back(), when, Action{&World::fire, &w, t});
  }
  w.burst(0, 200000);
  while (w.sim.pendingEvents() > 1000) w.sim.step();
  w.burst(w.sim.now(), 150000);
  while (w.sim.step()) {
  }
  const std::vector<std::uint64_t> expected = inKeyOrder(w.reference);
  ASSERT_GT(expected.size(), 350000u);
  EXPECT_EQ(w.ran, expected);
}

// Later events whose delay recurs run from a FIFO lane per delay (an operation's landing, a
// fixed latency after it crossed). Most events here take one of a few delays, more of them
// than there are lanes, mixed with events now, random delays and re-armed timers: the order
// must still be exactly (time, insertion), as the plain reference gives it.
TEST(EventQueue, RecurringDelaysRunFromLanesInExactlyTheReferenceOrder) {
  struct World : TimerWorld<World> {
    World() : TimerWorld(31, 16) {}
    int budget = 60000;
    void schedule(Time t) {
      const std::uint64_t id = kPlain + inserted;
      reference.emplace(std::make_pair(t, inserted++), id);
      sim.at(t, Action{&World::fire, this, id});
    }
    static void fire(void* self, std::uint64_t id) {
      auto* w = static_cast<World*>(self);
      w->ran.push_back(id);
      if (id < kPlain) w->armedKey[id].second = ~std::uint64_t{0};
      for (int c = 0; c < 2 && w->budget > 0; ++c, --w->budget) {
        const std::uint64_t pick = w->rng() % 16;
        const Time now = w->sim.now();
        if (pick < 10)  // twelve recurring delays: more than there are lanes
          w->schedule(now + 5 * static_cast<Time>(1 + w->rng() % 12));
        else if (pick < 12)
          w->schedule(now);
        else if (pick < 14)
          w->schedule(now + 1 + static_cast<Time>(w->rng() % 200));
        else
          w->arm(static_cast<int>(w->rng() % w->timers.size()),
                 now + static_cast<Time>(w->rng() % 60));
      }
    }
  } w;
  for (int i = 0; i < 64; ++i) w.schedule(static_cast<Time>(w.rng() % 100));
  while (w.sim.step()) {
  }
  const std::vector<std::uint64_t> expected = inKeyOrder(w.reference);
  ASSERT_GT(expected.size(), 50000u);
  EXPECT_EQ(w.ran, expected);
}

namespace {
// The frame keeps its copy of `token` until the frame is destroyed.
Task holds([[maybe_unused]] std::shared_ptr<int> token, Simulator& sim, Time wait) {
  co_await Delay{sim, wait};
}
Task fails(Simulator& sim) {
  co_await Delay{sim, 1};
  throw std::logic_error("a kernel bug");
}
}  // namespace

// Finished programs give their frames back (here: the token each frame holds) once enough
// programs have been spawned, while their names and done flags stay, a program still
// running keeps its frame, and a program that failed keeps its error for runUntil.
TEST(Simulator, FinishedProgramsGiveTheirFramesBackButKeepTheirErrors) {
  Simulator sim;
  auto token = std::make_shared<int>(0);
  const int failed = sim.spawn(fails(sim), "failed");
  const int running = sim.spawn(holds(token, sim, 1'000'000), "running");
  for (int i = 0; i < 5000; ++i) sim.spawn(holds(token, sim, 10), "p" + std::to_string(i));
  EXPECT_THROW(sim.runUntil(100), std::logic_error);  // `failed` threw at 1 ps
  EXPECT_EQ(token.use_count(), 5002);                 // no frame is given back before a later spawn
  // Enough later programs for a sweep (every 4096 spawns) to meet the 5000 done.
  for (int i = 0; i < 4000; ++i) sim.spawn(holds(nullptr, sim, 10), "q" + std::to_string(i));
  EXPECT_EQ(token.use_count(), 2);  // `running`'s copy and ours
  EXPECT_TRUE(sim.programDone(2));
  EXPECT_EQ(sim.programName(2), "p0");
  EXPECT_FALSE(sim.programDone(running));
  EXPECT_EQ(sim.unfinishedPrograms().size(), 4001u);  // `running` and the 4000 not yet run
  EXPECT_THROW(sim.runUntil(200), std::logic_error);  // the error is still there
  EXPECT_TRUE(sim.programDone(failed));
}

TEST(FlowNetwork, FlowsSharingOneLinkSplitItEvenlyAndSpeedUpWhenOneEnds) {
  Simulator sim;
  FlowNetwork net(sim);
  const int link = net.addResource("link", 1.0);  // 1 GB/s = 1 B/ns
  std::vector<int> done;
  std::vector<Time> at;
  struct Ctx {
    Simulator* sim;
    std::vector<int>* done;
    std::vector<Time>* at;
  } ctx{&sim, &done, &at};
  auto fire = [](void* c, std::uint64_t arg) {
    auto* x = static_cast<Ctx*>(c);
    x->done->push_back(static_cast<int>(arg));
    x->at->push_back(x->sim->now());
  };
  net.start({link}, 1000, Action{fire, &ctx, 0});  // 1000 B
  net.start({link}, 3000, Action{fire, &ctx, 1});  // 3000 B
  sim.run();
  // Both at 0.5 B/ns until flow 0 ends at 2000 ns; flow 1 then has 2000 B left at 1 B/ns.
  ASSERT_EQ(done, (std::vector<int>{0, 1}));
  EXPECT_EQ(at[0], 2000 * kNs);
  EXPECT_EQ(at[1], 4000 * kNs);
}

TEST(FlowNetwork, MaxMinFairnessGivesTheUnbottleneckedFlowTheLeftover) {
  Simulator sim;
  FlowNetwork net(sim);
  const int a = net.addResource("a", 1.0), b = net.addResource("b", 3.0);
  std::vector<int> order;
  // Flow 0 crosses a and b; flow 1 only b. a caps flow 0 at 1 B/ns, flow 1 gets 2 B/ns.
  net.start({a, b}, 1000, Action{&record, &order, 0});
  net.start({b}, 2000, Action{&record, &order, 1});
  sim.runUntil(1);
  EXPECT_DOUBLE_EQ(net.resource(b).activeRate, gbpsToBytesPerPs(3.0));
  sim.run();
  EXPECT_EQ(sim.now(), 1000 * kNs);  // both finish at 1 us
  EXPECT_EQ(order.size(), 2u);
}

// bandwidth_update_ns: transfers that start or end within the interval after a solve wait
// for the next one together; a change after a quiet spell is solved at once.
struct TimedStarts {
  Simulator sim;
  FlowNetwork net{sim};
  int l = net.addResource("l", 1.0), m = net.addResource("m", 1.0);  // 1 B/ns each
  std::vector<std::pair<int, Time>> ends;
  static void ended(void* self, std::uint64_t id) {
    auto* t = static_cast<TimedStarts*>(self);
    t->ends.emplace_back(static_cast<int>(id), t->sim.now());
  }
  static void startOnM(void* self, std::uint64_t id) {
    auto* t = static_cast<TimedStarts*>(self);
    t->net.start({t->m}, 100, Action{&ended, t, id});
  }
  std::vector<std::pair<int, Time>> run(Time interval) {
    net.setMinRecomputeInterval(interval);
    net.start({l}, 100, Action{&ended, this, 0});    // a: 0.5 B/ns with b, ends at 200 ns
    net.start({l}, 1000, Action{&ended, this, 1});   // b
    sim.at(150 * kNs, Action{&startOnM, this, 2});   // c: alone on m
    sim.at(1000 * kNs, Action{&startOnM, this, 3});  // d: alone on m, after a quiet spell
    sim.run();
    return ends;
  }
};

TEST(FlowNetwork, ABandwidthUpdateIntervalDefersStartsAndFreedCapacityToTheNextSolve) {
  using Ends = std::vector<std::pair<int, Time>>;
  // Exact: b speeds up when a ends at 200 ns and has 900 B left: it ends at 1100 ns.
  EXPECT_EQ(TimedStarts{}.run(0),
            (Ends{{0, 200 * kNs}, {2, 250 * kNs}, {1, 1100 * kNs}, {3, 1100 * kNs}}));
  // Every 100 ns at most: c (150 ns) is solved at once, 150 ns after the solve at 0. a's end
  // at 200 ns waits for the solve at 250 ns, so b runs at 0.5 B/ns until then (125 B) and
  // ends 25 ns later. d comes after a quiet spell and runs at once.
  EXPECT_EQ(TimedStarts{}.run(100 * kNs),
            (Ends{{0, 200 * kNs}, {2, 250 * kNs}, {3, 1100 * kNs}, {1, 1125 * kNs}}));
}

TEST(AiCorePipes, SamePipeOpsRunInOrderWhileDifferentPipesOverlap) {
  Scenario s;
  Emulation emu(s);
  AiCore& c = emu.machine().aiv(0, 0);
  Time vecDone = 0, copyDone = 0;
  auto prog = [&]() -> Task {
    Buffer* ub = emu.machine().allocUb(c, 65536, "ub", true);
    Buffer* gm = emu.machine().allocGm(0, 65536, "gm", true);
    OpRef v1 = c.vector(64 * 1024, 2);  // 512 cycles
    OpRef cp = c.copy(whole(ub), whole(gm));
    OpRef v2 = c.vector(64 * 1024, 2);
    co_await v2;
    vecDone = c.sim().now();
    EXPECT_TRUE(v1.done());
    co_await cp;
    copyDone = c.sim().now();
  };
  emu.launch(c, Role::Sender, prog(), nullptr);
  emu.sim().run();
  // Two vector ops back to back: 2 x 512 cycles at 1.8 GHz.
  EXPECT_EQ(vecDone, 2 * 284445);
  // The copy ran alongside: 64 KiB at the 100 GB/s port plus 500 ns GM latency.
  EXPECT_EQ(copyDone, transferTime(65536, 100.0) + 500 * kNs);
}

TEST(AiCoreDma, UnalignedGmReadOverReadsToAlignmentAndCropsInUb) {
  Scenario s;
  Emulation emu(s);
  AiCore& c = emu.machine().aiv(0, 0);
  Buffer* gm = emu.machine().allocGm(0, 256, "gm", true);
  for (int i = 0; i < 256; ++i) gm->data()[i] = static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> seen;
  auto prog = [&]() -> Task {
    // UB belongs to one kernel launch: it is read before the kernel ends (and frees it).
    Buffer* ub = emu.machine().allocUb(c, 64, "ub", true);
    co_await c.copy(Region{ub, 0, 40}, Region{gm, 10, 40});
    seen.assign(ub->data(), ub->data() + 40);
  };
  emu.launch(c, Role::Sender, prog(), nullptr);
  emu.sim().run();
  ASSERT_EQ(seen.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(seen[i], 10 + i);
  // [10, 50) spans [0, 64): 24 bytes over-read.
  EXPECT_EQ(emu.machine().overreadBytes, 24);
}

TEST(AiCoreDma, UnalignedUbAddressIsAKernelBug) {
  Scenario s;
  Emulation emu(s);
  AiCore& c = emu.machine().aiv(0, 0);
  Buffer* gm = emu.machine().allocGm(0, 256, "gm", true);
  Buffer* ub = emu.machine().allocUb(c, 64, "ub", true);
  EXPECT_THROW(c.copy(Region{ub, 8, 32}, Region{gm, 0, 32}), std::logic_error);
}

TEST(Machine, UbOverflowIsRefused) {
  Scenario s;
  Emulation emu(s);
  AiCore& c = emu.machine().aiv(0, 0);
  emu.machine().allocUb(c, 190000, "big", true);
  EXPECT_THROW(emu.machine().allocUb(c, 8192, "more", true), std::runtime_error);
}

// An RDMA queue pair (one core's connection to one card) sends its writes one after the
// other, in post order; writes on different queue pairs share the NIC.
TEST(AiCoreRdma, AQueuePairSendsItsWritesInTurnWhileQueuePairsShareTheNic) {
  constexpr std::int64_t kBytes = 1 << 20;
  auto landings = [](bool sameCore) {
    Scenario s;  // 2 servers: card 8 is on the other server
    Emulation emu(s);
    AiCore& a = emu.machine().aiv(0, 0);
    AiCore& b = emu.machine().aiv(0, sameCore ? 0 : 1);
    Buffer* src = emu.machine().allocGm(0, 2 * kBytes, "src", true);
    Buffer* dst = emu.machine().allocGm(8, 2 * kBytes, "dst", true);
    std::vector<Time> landed(2, -1);
    auto write = [&](AiCore& c, int i) -> Task {
      co_await c.rdmaWrite(Region{dst, i * kBytes, kBytes}, Region{src, i * kBytes, kBytes});
      landed[static_cast<std::size_t>(i)] = c.sim().now();
    };
    auto both = [&]() -> Task {
      OpRef w0 = a.rdmaWrite(Region{dst, 0, kBytes}, Region{src, 0, kBytes});
      OpRef w1 = a.rdmaWrite(Region{dst, kBytes, kBytes}, Region{src, kBytes, kBytes});
      co_await w0;
      landed[0] = a.sim().now();
      co_await w1;
      landed[1] = a.sim().now();
    };
    if (sameCore) {
      emu.launch(a, Role::Sender, both(), nullptr);
    } else {
      emu.launch(a, Role::Sender, write(a, 0), nullptr);
      emu.launch(b, Role::Sender, write(b, 1), nullptr);
    }
    emu.sim().run();
    return std::make_pair(landed, emu.machine().hw().nicGBps);
  };
  // Same queue pair: the second write goes on the wire when the first has left it, so it
  // lands one whole NIC transfer later (sharing, both would land together).
  const auto [serial, nic] = landings(true);
  EXPECT_NEAR(static_cast<double>(serial[1] - serial[0]),
              static_cast<double>(transferTime(kBytes, nic)), 1.0 * kNs);
  // Two cores, two queue pairs posting at once: they share the NIC and land together.
  const auto [shared, nic2] = landings(false);
  EXPECT_EQ(shared[0], shared[1]);
  EXPECT_GT(shared[0], serial[0]);
}

// Once an RDMA write and the flag that follows it have landed, their queue pair no longer
// keeps their records alive (every queue pair of a 256-rank run holding its last post was
// tens of MB), while the causal log still sees the next post queued behind the last one.
TEST(AiCoreRdma, ALandedPostIsNotKeptAliveByItsQueuePair) {
  Scenario s;  // 2 servers: card 8 is on the other server
  Emulation emu(s);
  Machine& m = emu.machine();
  CausalLog log(m.coreCount());
  m.setCausalLog(&log);
  AiCore& a = m.aiv(0, 0);
  Buffer* src = m.allocGm(0, 4096, "src", true);
  Buffer* dst = m.allocGm(8, 4096, "dst", true);
  Word& flag = *m.makeWord(8, "flag");
  int firstId = -1, nextId = -1, nextPrev = -1;
  auto prog = [&]() -> Task {
    OpRef w = a.rdmaWrite(Region{dst, 0, 2048}, Region{src, 0, 2048});
    OpRef f = a.rdmaWriteWord(flag, 1, w);
    firstId = f.op()->causalId;
    co_await f;
    co_await a.fence(Pipe::Scalar);
    // Landed and off the pipe: this program's OpRefs are the records' only owners.
    EXPECT_EQ(w.op().useCount(), 1);
    EXPECT_EQ(f.op().useCount(), 1);
    w = OpRef();
    f = OpRef();
    OpRef next = a.rdmaWrite(Region{dst, 2048, 2048}, Region{src, 2048, 2048});
    nextId = next.op()->causalId;
    nextPrev = log.op(nextId).qpPrev;
    co_await next;
  };
  emu.launch(a, Role::Sender, prog(), nullptr);
  emu.sim().run();
  m.setCausalLog(nullptr);
  ASSERT_GE(firstId, 0);
  EXPECT_EQ(nextPrev, firstId);
  EXPECT_EQ(flag.value, 1);
  EXPECT_EQ(std::memcmp(dst->data(), src->data(), 4096), 0);
}

// A program's queue pairs go when it ends, all its posts having landed: a later program
// on the core starts without them, and its posts land as before. Under a causal log they
// stay, so that the next program's first post still names the last one it queued behind.
TEST(AiCoreRdma, QueuePairsGoWhenTheProgramEndsUnlessACausalLogLinksThem) {
  for (const bool withLog : {false, true}) {
    Scenario s;  // 2 servers: cards 8 and 9 are on the other server
    Emulation emu(s);
    Machine& m = emu.machine();
    CausalLog log(m.coreCount());
    if (withLog) m.setCausalLog(&log);
    AiCore& a = m.aiv(0, 0);
    Buffer* src = m.allocGm(0, 4096, "src", true);
    Buffer* dst8 = m.allocGm(8, 4096, "dst8", true);
    Buffer* dst9 = m.allocGm(9, 4096, "dst9", true);
    int pairsAtEnd = -1, firstId = -1, nextPrev = -2;
    auto first = [&]() -> Task {
      OpRef w8 = a.rdmaWrite(Region{dst8, 0, 2048}, Region{src, 0, 2048});
      OpRef w9 = a.rdmaWrite(Region{dst9, 0, 2048}, Region{src, 0, 2048});
      firstId = w8.op()->causalId;
      pairsAtEnd = a.queuePairCount();
      co_await a.fence(Pipe::Scalar);
    };
    auto second = [&]() -> Task {
      OpRef w = a.rdmaWrite(Region{dst8, 2048, 2048}, Region{src, 2048, 2048});
      if (withLog) nextPrev = log.op(w.op()->causalId).qpPrev;
      co_await w;
    };
    emu.launch(a, Role::Sender, first(), nullptr);
    emu.sim().run();
    EXPECT_EQ(pairsAtEnd, 2);
    EXPECT_EQ(a.queuePairCount(), withLog ? 2 : 0);
    emu.launch(a, Role::Sender, second(), nullptr);
    emu.sim().run();
    m.setCausalLog(nullptr);
    EXPECT_TRUE(emu.sim().unfinishedPrograms().empty());
    EXPECT_EQ(std::memcmp(dst8->data(), src->data(), 4096), 0);
    EXPECT_EQ(nextPrev, withLog ? firstId : -2);
  }
}
