// Ring data in pages (issues 12 and 17): a ring's bytes are held on the host only while
// they are unread, copies through pages move the same bytes as a plain memmove, a layer
// with tiny rings still verifies, and a planted fault is diagnosed the same with or
// without payload bytes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

#include "core/machine/memory.h"
#include "core/machine/ring_pages.h"
#include "core/run/layer_run.h"
#include "core/run/reference_chain.h"
#include "core/run/run_report.h"

using namespace moe;

namespace {

Scenario smallFull() {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 4;
  s.hardware.cardsPerServer = 4;
  s.model.tokensPerRank = 32;
  s.model.hidden = 512;
  s.model.topk = 4;
  s.model.experts = 16;
  s.rings.setBoth(&RingTiling::chunkBytes, 4096);  // tiny rings: every ring wraps many times
  s.rings.setBoth(&RingTiling::queueChunks, 2);
  s.rings.setBoth(&RingTiling::senderCores, 2);
  s.rings.setBoth(&RingTiling::forwarderCores, 2);
  s.rings.setBoth(&RingTiling::receiverCores, 2);
  s.dispatchImpl = Design::Streaming;
  return s;
}

}  // namespace

TEST(RingPages, ASlotIsHeldFromItsFirstWriteUntilTheHeadPassesItsData) {
  PagePool pool(64);
  RingPages ring(pool, 4);  // 256 B data area
  EXPECT_EQ(pool.inUseBytes(), 0u);
  std::memset(ring.at(10), 1, 20);
  ring.landed(10, 30);
  EXPECT_EQ(pool.inUseBytes(), 64u) << "one slot written";
  ring.consumedTo(20);
  EXPECT_EQ(pool.inUseBytes(), 64u) << "bytes 20..30 are unread";
  ring.consumedTo(30);
  EXPECT_EQ(pool.inUseBytes(), 0u) << "everything written into slot 0 is read";
}

TEST(RingPages, ASlotThatAlsoHoldsTheNextLapIsKeptUntilThatIsReadToo) {
  PagePool pool(64);
  RingPages ring(pool, 4);  // 256 B data area
  for (std::int64_t a = 0; a < 250; a += 50) {
    ring.at(a % 256);
    ring.landed(a, a + 50);
  }
  ring.consumedTo(40);
  // The head is byte-granular: lap 1 may write the start of slot 0 while the end of slot 0
  // (bytes 40..64 of lap 0) is still unread.
  std::memset(ring.at(0), 0xab, 30);
  ring.landed(256, 286);
  ring.consumedTo(250);  // all of lap 0 is read
  EXPECT_EQ(pool.inUseBytes(), 64u) << "slot 0 still holds lap 1's bytes 256..286";
  for (int i = 0; i < 30; ++i) ASSERT_EQ(ring.at(i)[0], 0xab) << "lap 1's byte " << i;
  ring.consumedTo(286);
  EXPECT_EQ(pool.inUseBytes(), 0u);
}

// A finished pool's slabs are zeroed and cached for the next pool of any page size: its
// pages read as a fresh mapping's, whatever the last ring wrote into them.
TEST(PagePool, ASlabOfAFinishedPoolIsReusedZeroedByTheNextPool) {
  releaseWarmHostMemory();
  std::uint8_t* written = nullptr;
  {
    PagePool a(16 << 10);
    written = a.take();
    std::memset(written, 0xcd, 16 << 10);
    a.give(written);
  }
  EXPECT_EQ(PagePool::cachedSlabBytes(), std::size_t{2} << 20);
  PagePool b(14336);  // not a divisor of the slab: the slab's tail stays unused
  std::vector<std::uint8_t*> pages;
  for (int i = 0; i < 146; ++i) pages.push_back(b.take());  // 146 x 14 KiB fit in 2 MiB
  EXPECT_EQ(PagePool::cachedSlabBytes(), 0u) << "the cached slab was taken";
  EXPECT_TRUE(std::find(pages.begin(), pages.end(), written) != pages.end()) << "the same slab";
  for (std::uint8_t* p : pages)
    EXPECT_TRUE(std::all_of(p, p + 14336, [](std::uint8_t v) { return v == 0; }));
  EXPECT_EQ(b.heldBytes(), 146u * 14336);
  for (std::uint8_t* p : pages) b.give(p);
  b.releaseIfIdle();  // between stages: to the OS, not held idle through the next stage
  EXPECT_EQ(b.heldBytes(), 0u);
  EXPECT_EQ(PagePool::cachedSlabBytes(), 0u);
  auto run = std::make_unique<PagePool>(4096);
  run->take();
  run.reset();  // a run ends: its pools' slabs go to the cache
  EXPECT_EQ(PagePool::cachedSlabBytes(), std::size_t{2} << 20) << "cached for the next run";
  EXPECT_GE(warmHostMemory().mappedBytes, std::size_t{2} << 20);
  EXPECT_GE(warmHostMemory().residentBytes, std::size_t{2} << 20);
  releaseWarmHostMemory();
  EXPECT_EQ(PagePool::cachedSlabBytes(), 0u);
  EXPECT_EQ(warmHostMemory().mappedBytes, 0u);
}

TEST(RingPages, CopiesThroughPagesMoveTheSameBytesAsAPlainCopy) {
  PagePool pool(4096);
  Buffer ring{"ring", MemSpace::Gm, 0, -1, 4 * 4096, {}, std::make_unique<RingPages>(pool, 4), {}};
  std::vector<std::uint8_t> src(10000), back(10000);
  std::iota(src.begin(), src.end(), std::uint8_t{7});
  Buffer in{"in", MemSpace::Gm, 0, -1, 10000, ByteStore::view(src.data(), src.size()), nullptr, {}};
  Buffer out{"out", MemSpace::Gm, 0, -1, 10000, ByteStore::view(back.data(), back.size()), nullptr,
             {}};
  // Across three page boundaries, at an odd offset on both sides.
  copyBytes(Region{&ring, 1000, 9000}, Region{&in, 1, 9000});
  copyBytes(Region{&out, 3, 9000}, Region{&ring, 1000, 9000});
  EXPECT_EQ(0, std::memcmp(back.data() + 3, src.data() + 1, 9000));
  EXPECT_EQ(pool.inUseBytes(), 3u * 4096) << "pages 0, 1 and 2 hold bytes 1000..10000";
}

TEST(RingPages, ALayerWithTinyRingsVerifiesAndHoldsLessThanItsRingsReserve) {
  const Scenario sc = smallFull();
  const ResolvedScenario rs = ResolvedScenario::resolve(sc);
  const ReferenceLayer ref = computeReference(rs);
  LayerRun run(rs, Design::Streaming);
  run.runToEnd();
  ASSERT_TRUE(run.finished());
  for (const auto& check : run.verify(ref)) EXPECT_TRUE(check.ok) << check.name << check.detail;
  std::int64_t wraps = 0, ringBytes = 0;
  for (const RingBuffer& r : run.emulation().rings()) {
    wraps += r.stats().wraps;
    ringBytes += r.capacity();
    EXPECT_TRUE(r.violations().empty()) << r.violations().front();
  }
  EXPECT_GT(wraps, 100) << "the rings must go round for this test to mean anything";
  const std::size_t held = run.emulation().machine().ringPagePeakBytes();
  EXPECT_GT(held, 0u);
  EXPECT_LT(held, static_cast<std::size_t>(ringBytes) / 2)
      << "ring pages held at the peak against the rings' reserved capacity";
}

TEST(RingPages, AFaultIsDiagnosedTheSameWithAndWithoutPayloadBytes) {
  Scenario full = smallFull();
  full.rings.setBoth(&RingTiling::chunkBytes, 65536);
  full.rings.setBoth(&RingTiling::queueChunks, 8);
  Scenario none = full;
  none.payload = PayloadMode::None;
  for (Fault f : {Fault::DropTail, Fault::StallCore}) {
    const RunReport a = runScenario(ResolvedScenario::resolve(full), false, f);
    const RunReport b = runScenario(ResolvedScenario::resolve(none), false, f);
    ASSERT_EQ(a.results.size(), 1u);
    ASSERT_EQ(b.results.size(), 1u);
    EXPECT_TRUE(a.results[0].deadlocked) << faultName(f) << ": the fault must deadlock";
    EXPECT_NE(a.results[0].deadlockText(), "");
    EXPECT_EQ(a.results[0].deadlockText(), b.results[0].deadlockText()) << faultName(f);
    EXPECT_EQ(a.runs[0]->emulation().sim().eventsRun(), b.runs[0]->emulation().sim().eventsRun());
  }
}
