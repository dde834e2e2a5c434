// Rings destroyed once their stage is over (Emulation::retireRings), as `moe-sim run` does
// for dispatch's rings: what a report reads of them stays, and so do the run's results.

#include <gtest/gtest.h>

#include "core/run/layer_run.h"
#include "core/run/reference_chain.h"
#include "core/runtime/emulation.h"
#include "small_streaming_scenario.h"

using namespace moe;

// Every design with and without retiring dispatch's rings: the same digest, the same
// verification (names and details, the ring count among them) and the same peak ring
// occupancy; the combine's rings are numbered after dispatch's either way.
TEST(RingRetirement, ResultsDigestAndReportAreThoseOfARunThatKeepsItsRings) {
  for (Design design : {Design::Streaming, Design::Phased, Design::Flat}) {
    Scenario sc = test::smallStreamingScenario(2, 4);
    sc.dispatchImpl = design;
    const ResolvedScenario rs = ResolvedScenario::resolve(sc);
    const ReferenceLayer ref = computeReference(rs);
    LayerRun kept(rs, design), retired(rs, design);
    kept.freeTensorsWhenDead(&ref);
    retired.freeTensorsWhenDead(&ref);
    retired.retireRingsAfterTheirStage();
    kept.runToEnd();
    retired.runToEnd();
    ASSERT_TRUE(retired.finished()) << designName(design);
    EXPECT_EQ(retired.digest(), kept.digest()) << designName(design);
    EXPECT_EQ(retired.peakRingOccupancy(), kept.peakRingOccupancy()) << designName(design);
    const Emulation& k = kept.emulation();
    const Emulation& r = retired.emulation();
    EXPECT_EQ(r.ringCount(), k.ringCount()) << designName(design);
    if (design == Design::Streaming) {
      EXPECT_LT(r.rings().size(), k.rings().size());  // dispatch's rings are gone
      EXPECT_EQ(r.rings().front().id(), k.rings()[k.rings().size() - r.rings().size()].id());
    }
    const auto a = kept.verify(ref), b = retired.verify(ref);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].name, b[i].name);
      EXPECT_TRUE(b[i].ok) << b[i].name << ": " << b[i].detail;
      EXPECT_EQ(a[i].detail, b[i].detail) << b[i].name;
    }
  }
}

namespace {
Task writeOneRecord(RingBuffer& ring, AiCore& core, Machine& m) {
  Buffer* ub = m.allocUb(core, 64, "staging", true);
  co_await ring.waitSpace(core, 64);
  ring.writeFromUb(core, whole(ub), {RecordMeta{}}, 64);
  co_await core.fence(Pipe::Mte3);
  co_await ring.publishTail(core);
}
}  // namespace

// A ring retired with a record nobody read still fails exactly-once delivery, and its data
// area's record goes to the next GM buffer made, under that buffer's name.
TEST(RingRetirement, AnUnreadRecordIsStillReportedAndTheDataRecordIsReused) {
  Scenario s;
  s.cluster.servers = 2;
  Emulation emu(s);
  Machine& m = emu.machine();
  RingBuffer& ring = emu.addRing("probe ring", RingKind::Ipc, 1, 0, 64, 2);
  Buffer* data = ring.dataBuffer();
  emu.launch(m.aiv(0, 0), Role::Sender, writeOneRecord(ring, m.aiv(0, 0), m), nullptr);
  emu.sim().run();
  ASSERT_TRUE(emu.sim().unfinishedPrograms().empty());
  EXPECT_EQ(data->name.str(), "card1.probe ring.data");

  emu.retireRings();
  EXPECT_TRUE(emu.rings().empty());
  EXPECT_EQ(emu.ringCount(), 1);
  EXPECT_EQ(emu.retiredPeakOccupancy(), 64);
  EXPECT_EQ(emu.retiredDeliveryError(),
            "probe ring: 1 records written, 0 read (exactly-once delivery broken)");
  RingBuffer& next = emu.addRing("next", RingKind::Ipc, 0, 1, 128, 2);
  EXPECT_EQ(next.id(), 1);
  EXPECT_EQ(next.dataBuffer(), data);  // the record, not a new one
  EXPECT_EQ(data->name.str(), "card0.next.data");
  EXPECT_EQ(data->card, 0);
  EXPECT_EQ(data->size, 256);
  Buffer* after = m.allocGm(1, 64, "after", false);
  EXPECT_NE(after, data);  // one record, reused once
}
