// Ring protocol invariants (DESIGN.md §3.5b), exercised directly with tiny rings: wrap-around,
// back-pressure, exactly-once in-order delivery, and detection of a broken producer.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/runtime/emulation.h"

using namespace moe;

namespace {

Scenario tinyScenario() {
  Scenario s;
  s.cluster.servers = 2;
  return s;
}

constexpr std::int64_t kRecord = 96;  // bytes per record, 32-B aligned

// Producer: for each record, fill UB with a pattern, wait for space, write, fence, publish.
Task producer(RingBuffer& ring, AiCore& core, Machine& m, int records, bool skipFlowControl) {
  Buffer* ub = m.allocUb(core, kRecord, "staging", true);
  for (int i = 0; i < records; ++i) {
    std::memset(ub->data(), i & 0xff, kRecord);
    if (!skipFlowControl) co_await ring.waitSpace(core, kRecord);
    RecordMeta meta;
    meta.token = i;
    ring.writeFromUb(core, whole(ub), {meta}, kRecord);
    co_await core.fence(Pipe::Mte3);
    co_await ring.publishTail(core);
  }
}

// `work` models per-record processing (a reduction): a slow consumer forces back-pressure.
Task consumer(RingBuffer& ring, AiCore& core, Machine& m, int records, std::vector<int>& seen,
              int& corrupt, Time work = 0) {
  Buffer* ub = m.allocUb(core, kRecord, "rx", true);
  for (int i = 0; i < records; ++i) {
    co_await ring.waitData(core, kRecord);
    const RecordMeta meta = ring.takeRecord();
    co_await ring.read(core, whole(ub), kRecord);
    for (std::int64_t b = 0; b < kRecord; ++b)
      if (ub->data()[b] != static_cast<std::uint8_t>(meta.token & 0xff)) ++corrupt;
    seen.push_back(meta.token);
    if (work > 0) co_await core.scalarWork(work);
    co_await ring.advanceHead(core);
  }
}

}  // namespace

TEST(RingBuffer, TwoChunkRingWrapsUnderBackPressureAndDeliversEachRecordOnceInOrder) {
  Emulation emu(tinyScenario());
  auto& m = emu.machine();
  // One record per chunk, two chunks: every third write wraps and the producer stalls.
  RingBuffer& ring = emu.addRing("ipc.card1<-card0", RingKind::Ipc, 1, 0, kRecord, 2);
  std::vector<int> seen;
  int corrupt = 0;
  const int n = 50;
  emu.launch(m.aiv(0, 0), Role::Sender, producer(ring, m.aiv(0, 0), m, n, false), nullptr);
  emu.launch(m.aiv(1, 0), Role::Receiver,
             consumer(ring, m.aiv(1, 0), m, n, seen, corrupt, 10 * kUs), nullptr);
  emu.sim().run();
  EXPECT_TRUE(emu.sim().unfinishedPrograms().empty()) << emu.deadlockDiagnosis();
  EXPECT_TRUE(emu.violations().empty()) << emu.violations().front();
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) EXPECT_EQ(seen[i], i);
  EXPECT_EQ(corrupt, 0);
  EXPECT_EQ(ring.stats().recordsWritten, n);
  EXPECT_EQ(ring.stats().recordsRead, n);
  EXPECT_GT(ring.stats().spaceWaits, 0);
  EXPECT_LE(ring.stats().peakOccupancy, ring.capacity());
  EXPECT_EQ(ring.head(), ring.tail());
}

TEST(RingBuffer, UnalignedRingCapacityStillSplitsWritesAtTheWrap) {
  Emulation emu(tinyScenario());
  auto& m = emu.machine();
  // Capacity 5 records of 96 B: not a multiple of the write size pattern below.
  RingBuffer& ring = emu.addRing("ipc.card2<-card3", RingKind::Ipc, 2, 3, kRecord, 5);
  std::vector<int> seen;
  int corrupt = 0;
  emu.launch(m.aiv(3, 1), Role::Sender, producer(ring, m.aiv(3, 1), m, 37, false), nullptr);
  emu.launch(m.aiv(2, 1), Role::Receiver, consumer(ring, m.aiv(2, 1), m, 37, seen, corrupt),
             nullptr);
  emu.sim().run();
  EXPECT_TRUE(emu.violations().empty());
  EXPECT_EQ(seen.size(), 37u);
  EXPECT_EQ(corrupt, 0);
}

TEST(RingBuffer, ProducerThatSkipsFlowControlIsCaughtOverwritingUnconsumedBytes) {
  Emulation emu(tinyScenario());
  auto& m = emu.machine();
  RingBuffer& ring = emu.addRing("ipc.card1<-card0", RingKind::Ipc, 1, 0, kRecord, 2);
  std::vector<int> seen;
  int corrupt = 0;
  emu.launch(m.aiv(0, 0), Role::Sender, producer(ring, m.aiv(0, 0), m, 8, true), nullptr);
  emu.launch(m.aiv(1, 0), Role::Receiver,
             consumer(ring, m.aiv(1, 0), m, 8, seen, corrupt, 10 * kUs), nullptr);
  emu.sim().run();
  ASSERT_FALSE(emu.violations().empty());
  EXPECT_NE(emu.violations().front().find("overwrite unconsumed"), std::string::npos)
      << emu.violations().front();
}

TEST(RingBuffer, ConsumerWaitingForDataThatNeverComesIsDiagnosedWithPointerValues) {
  Emulation emu(tinyScenario());
  auto& m = emu.machine();
  RingBuffer& ring = emu.addRing("ipc.card1<-card0", RingKind::Ipc, 1, 0, kRecord, 2);
  std::vector<int> seen;
  int corrupt = 0;
  emu.launch(m.aiv(0, 0), Role::Sender, producer(ring, m.aiv(0, 0), m, 3, false), nullptr);
  emu.launch(m.aiv(1, 0), Role::Receiver, consumer(ring, m.aiv(1, 0), m, 4, seen, corrupt),
             nullptr);
  emu.sim().run();  // returns: the queue drains, it never hangs
  ASSERT_EQ(emu.sim().unfinishedPrograms().size(), 1u);
  const std::string d = emu.deadlockDiagnosis();
  EXPECT_NE(d.find("card1.aiv0 (receiver, wait-data"), std::string::npos) << d;
  EXPECT_NE(d.find("head 288, tail 288"), std::string::npos) << d;
}

// Rings made in bulk are named on demand from their indices (see indexed_labels.h); their
// data area and head and tail words are named from the ring's name. Each must read exactly
// as the stored text did, and a ring named by text keeps that text.
TEST(RingBuffer, NamesMadeOnDemandReadAsTheStoredTextDid) {
  Emulation emu(tinyScenario());
  const IndexedLabels& names = emu.addRingNames([](const IndexedLabels::Indices& i) {
    return "card" + std::to_string(i[0]) + " IPC <- card" + std::to_string(i[1]) + " lane" +
           std::to_string(i[2]) + "." + std::to_string(i[3]);
  });
  RingBuffer& made = emu.addRing(names(9, 767, 32767, 0), RingKind::Ipc, 9, 8, kRecord, 2);
  RingBuffer& text = emu.addRing("ipc.card1<-card0", RingKind::Rdma, 1, 0, kRecord, 2);
  EXPECT_EQ(made.name(), "card9 IPC <- card767 lane32767.0");
  EXPECT_EQ(made.dataBuffer()->name.str(), "card9.card9 IPC <- card767 lane32767.0.data");
  EXPECT_EQ(made.tailWord()->name.str(), "card9.card9 IPC <- card767 lane32767.0.tail");
  EXPECT_EQ(text.name(), "ipc.card1<-card0");
  EXPECT_EQ(text.dataBuffer()->name.str(), "card1.ipc.card1<-card0.data");
  EXPECT_NE(text.describe().find("RDMA ring ipc.card1<-card0 (capacity 192): head 0, tail 0"),
            std::string::npos)
      << text.describe();
  EXPECT_THROW(names(-1), std::logic_error);
  EXPECT_THROW(names(0, 32768), std::logic_error);
  // Both rings' data and control blocks are counted against their cards' GM.
  EXPECT_EQ(emu.machine().card(9).gmAllocated, 2 * kRecord + 2 * kControlLineBytes);
}

TEST(RingBuffer, RdmaRingPublishesTailOnlyBehindItsData) {
  Emulation emu(tinyScenario());
  auto& m = emu.machine();
  // card 8 is on server 1: the ring is written by RDMA from a GM staging area.
  RingBuffer& ring = emu.addRing("rdma.card8<-server0", RingKind::Rdma, 8, 0, 4 * kRecord, 2);
  Buffer* gm = m.allocGm(0, 4 * kRecord, "stage", true);
  std::memset(gm->data(), 7, gm->size);
  std::vector<int> seen;
  int corrupt = 0;
  auto prod = [&](AiCore& c) -> Task {
    for (int batch = 0; batch < 5; ++batch) {
      std::memset(gm->data(), (batch * 4) & 0xff, gm->size);
      co_await ring.waitSpace(c, 4 * kRecord);
      std::vector<RecordMeta> metas(4);
      for (int i = 0; i < 4; ++i) metas[i].token = batch * 4;
      OpRef data = ring.writeByRdma(c, whole(gm), metas, kRecord);
      co_await ring.publishTail(c, data);
      co_await data;  // the staging area is reused: wait for the NIC to finish reading it
    }
  };
  emu.launch(m.aiv(0, 0), Role::Forwarder, prod(m.aiv(0, 0)), nullptr);
  emu.launch(m.aiv(8, 0), Role::Receiver, consumer(ring, m.aiv(8, 0), m, 20, seen, corrupt),
             nullptr);
  emu.sim().run();
  EXPECT_TRUE(emu.violations().empty()) << emu.violations().front();
  EXPECT_EQ(seen.size(), 20u);
  EXPECT_EQ(corrupt, 0);
  // One post per batch: each tail rides in its data's BatchWrite.
  EXPECT_EQ(m.rdmaPosts, 5);
}

TEST(RingBuffer, SmallRdmaBatchPostedBehindABigOneNeverMovesTheTailBackwards) {
  // A big batch then a small one, posted back to back on the same queue pair. Sharing the
  // NIC, the small one finishes crossing first; it must still land (and its tail become
  // visible) after the big one, or the big batch's older tail would overwrite the newer.
  Emulation emu(tinyScenario());
  auto& m = emu.machine();
  constexpr std::int64_t kBig = 14432;
  constexpr std::int64_t kBatch = 40;  // ~23 us on the NIC: the small post lands inside it
  RingBuffer& ring = emu.addRing("rdma.card8<-card0", RingKind::Rdma, 8, 0, (kBatch + 1) * kBig, 2);
  Buffer* stage = m.allocGm(0, (kBatch + 1) * kBig, "stage", true);
  std::vector<std::int64_t> tails;
  auto prod = [&](AiCore& c) -> Task {
    co_await ring.waitSpace(c, (kBatch + 1) * kBig);
    std::vector<RecordMeta> many(kBatch), one(1);
    OpRef big = ring.writeByRdma(c, Region{stage, 0, kBatch * kBig}, many, kBig);
    ring.publishTail(c, big);
    OpRef small = ring.writeByRdma(c, Region{stage, kBatch * kBig, kBig}, one, kBig);
    ring.publishTail(c, small);
    co_await c.fence(Pipe::Scalar);
  };
  auto watch = [&](AiCore& c) -> Task {
    std::int64_t seen = 0;
    while (seen < (kBatch + 1) * kBig) {
      auto change = c.changeOf(*ring.tailWord(), seen, Activity::WaitData,
                               [] { return std::string("test"); });
      co_await change;
      seen = ring.tail();
      tails.push_back(seen);
    }
  };
  emu.launch(m.aiv(0, 0), Role::Forwarder, prod(m.aiv(0, 0)), nullptr);
  emu.launch(m.aiv(8, 0), Role::Receiver, watch(m.aiv(8, 0)), nullptr);
  emu.sim().run();
  EXPECT_TRUE(emu.violations().empty()) << emu.violations().front();
  ASSERT_FALSE(tails.empty());
  EXPECT_TRUE(std::is_sorted(tails.begin(), tails.end()));
  EXPECT_EQ(ring.tail(), (kBatch + 1) * kBig);
}
