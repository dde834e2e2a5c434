// Issue 12 (memory proportional to what a run holds): GM arenas allocate lazily and reuse
// freed ranges, a CLI run frees each tensor once it is dead and each design's memory before
// the next design starts, payload "none" reserves no GM for data, and none of it changes a
// result or a digest.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/machine/memory.h"
#include "core/run/layer_run.h"
#include "core/run/memory_estimate.h"
#include "core/run/reference_chain.h"
#include "core/run/run_report.h"
#include "core/scenario/scenario_json.h"

using namespace moe;

namespace {

bool allZero(const std::uint8_t* p, std::size_t n) {
  return std::all_of(p, p + n, [](std::uint8_t b) { return b == 0; });
}

Scenario smallFull(DesignSelection impl) {
  Scenario s;
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 4;
  s.hardware.cardsPerServer = 4;
  s.model.tokensPerRank = 32;
  s.model.hidden = 512;
  s.model.topk = 4;
  s.model.experts = 16;
  s.rings.setBoth(RingTiling{8192, 4, 2, 2, 2});
  s.dispatchImpl = impl;
  return s;
}

}  // namespace

TEST(GmArena, AFreedRangeIsZeroAgainAndReusedByTheNextBuffer) {
  GmArena arena(true);
  const std::size_t n = 3 << 20;
  std::uint8_t* a = arena.allocate(n);
  ASSERT_TRUE(allZero(a, n));
  std::memset(a + 4096, 0xab, 100000);  // touched in the middle only
  arena.free(a, n);
  std::uint8_t* b = arena.allocate(n);
  EXPECT_EQ(b, a) << "the freed range is the first fit";
  EXPECT_TRUE(allZero(b, n)) << "a reused range reads as zeros";
}

TEST(GmArena, FreeRangesCoalesceSoALargerBufferFitsTheHole) {
  GmArena arena(false);
  std::uint8_t* a = arena.allocate(1 << 20);
  std::uint8_t* b = arena.allocate(1 << 20);
  std::uint8_t* c = arena.allocate(1 << 20);  // keeps the hole closed at its end
  std::memset(a, 1, 1 << 20);
  std::memset(b, 2, 1 << 20);
  arena.free(b, 1 << 20);
  arena.free(a, 1 << 20);
  std::uint8_t* big = arena.allocate(2 << 20);
  EXPECT_EQ(big, a);
  EXPECT_TRUE(allZero(big, 2 << 20));
  EXPECT_NE(c, nullptr);
}

TEST(GmArena, UnwrittenBytesOfASparseWindowCostNoMemoryAndReadAsZeros) {
  GmArena arena(false);  // 4 KiB pages, as worst-case windows use
  const std::size_t n = 32 << 20;
  std::uint8_t* w = arena.allocate(n);
  const std::size_t before = arena.residentBytes();
  std::memset(w + (8 << 20), 7, 3 * 4096);  // three pages written
  const std::size_t written = arena.residentBytes() - before;
  EXPECT_GE(written, 3u * 4096);
  EXPECT_LE(written, 64u * 4096) << "writing 12 KiB of a 32 MiB window";
  EXPECT_TRUE(allZero(w, 8 << 20));
  EXPECT_TRUE(allZero(w + (8 << 20) + 3 * 4096, n - (8 << 20) - 3 * 4096));
  arena.free(w, n);
  EXPECT_EQ(arena.residentBytes(), 0u) << "nothing is allocated any more";
}

TEST(GmMemory, DeadBytesGiveTheirPagesBackAndNeighboursKeepTheirs) {
  GmArena arena(false);
  const std::size_t n = (3 << 20) + 100;  // not a whole number of pages
  std::uint8_t* before = arena.allocate(5000);
  std::uint8_t* p = arena.allocate(n);
  std::uint8_t* after = arena.allocate(5000);
  std::memset(before, 1, 5000);
  std::memset(p, 2, n);
  std::memset(after, 3, 5000);
  Buffer b{
      "rows", MemSpace::Gm, 0, -1, static_cast<std::int64_t>(n), ByteStore::view(p, n), nullptr,
      {}};
  const std::size_t full = arena.residentBytes();
  // Rows of 14 KiB (3.5 pages) consumed one by one, in an order that is not the address's.
  const std::int64_t row = 14 << 10, rows = static_cast<std::int64_t>(n) / row;
  for (std::int64_t i = rows - 1; i >= 0; i -= 2) dropDeadBytes(b, i * row, row);
  for (std::int64_t i = rows - 2; i >= 0; i -= 2) dropDeadBytes(b, i * row, row);
  dropDeadBytes(b, rows * row, static_cast<std::int64_t>(n) - rows * row);
  EXPECT_LE(arena.residentBytes(), full - n + 2 * 4096)
      << "every page wholly inside the buffer is given back";
  EXPECT_TRUE(std::all_of(before, before + 5000, [](std::uint8_t v) { return v == 1; }));
  EXPECT_TRUE(std::all_of(after, after + 5000, [](std::uint8_t v) { return v == 3; }));
  const std::uintptr_t firstWhole = (reinterpret_cast<std::uintptr_t>(p) + 4095) / 4096 * 4096;
  const auto* inner = reinterpret_cast<const std::uint8_t*>(firstWhole);
  EXPECT_TRUE(allZero(inner, 1 << 20)) << "dropped pages read as zero";
  EXPECT_THROW(dropDeadBytes(b, 0, 10), std::logic_error) << "declared dead twice";
  EXPECT_THROW(dropDeadBytes(b, static_cast<std::int64_t>(n) - 1, 2), std::out_of_range);
}

TEST(GmMemory, FreeingDeadTensorsKeepsDigestAndChecksOfBothDesigns) {
  Scenario wide = smallFull(Design::Streaming);  // rows of 8 KiB: pages go back mid-run
  wide.model.hidden = 4096;
  wide.model.tokensPerRank = 64;
  wide.rings.setBoth(&RingTiling::chunkBytes, 65536);
  for (const Scenario& base : {smallFull(Design::Phased), wide}) {
    for (Design impl : {Design::Phased, Design::Streaming}) {
      Scenario sc = base;
      sc.dispatchImpl = impl;
      const ResolvedScenario rs = ResolvedScenario::resolve(sc);
      const ReferenceLayer ref = computeReference(rs);
      LayerRun kept(rs, impl), freed(rs, impl);
      freed.freeTensorsWhenDead(&ref);
      kept.runToEnd();
      freed.runToEnd();
      ASSERT_TRUE(freed.finished());
      EXPECT_TRUE(freed.settledThroughExperts());
      EXPECT_EQ(freed.digest(), kept.digest()) << designName(impl);
      const auto a = kept.verify(ref), b = freed.verify(ref);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].name, b[i].name);
        EXPECT_TRUE(b[i].ok) << b[i].name << ": " << b[i].detail;
        EXPECT_EQ(a[i].detail, b[i].detail);
      }
      // The rows are gone once their last reader is done: expand_x after the experts,
      // expert_out during the combine.
      for (const CardTensors& t : freed.context().cards) {
        EXPECT_TRUE(t.dispatch.expandX->bytes.empty());
        EXPECT_TRUE(t.experts.expertOut->bytes.empty());
        EXPECT_FALSE(t.combine.xOut->bytes.empty()) << "the combine output is kept";
      }
      EXPECT_FALSE(kept.context().cards[0].dispatch.expandX->bytes.empty())
          << "a plain run keeps them";
      // Checked against the reference it was given, not a second one it can no longer meet.
      const auto again = freed.verifyAgainstReference();
      ASSERT_EQ(again.size(), b.size());
      for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(again[i].detail, b[i].detail);
      const ReferenceLayer other = computeReference(rs);
      EXPECT_THROW(freed.verify(other), std::logic_error)
          << "rows checked against one reference cannot be checked against another";
    }
  }
}

TEST(GmMemory, EachDesignsMemoryIsFreedBeforeTheNextDesignStarts) {
  Scenario sc = smallFull(DesignSelection::both());
  // One design after the other (threads 1), as a run does when both do not fit at once.
  const RunReport r = runScenario(ResolvedScenario::resolve(sc), true, Fault::None, {}, nullptr, 1);
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_TRUE(r.ok());
  for (const auto& run : r.runs) {
    const Machine& m = run->emulation().machine();
    EXPECT_EQ(m.reservedGmBytes(), 0u) << run->design() << " still holds GM";
    for (const CardTensors& t : run->context().cards) EXPECT_TRUE(t.input.x->bytes.empty());
  }
  EXPECT_GT(r.tensorBytes, 0);
}

TEST(GmMemory, PayloadNoneReservesNoGmForData) {
  Scenario sc = smallFull(Design::Streaming);
  sc.payload = PayloadMode::None;
  LayerRun run(ResolvedScenario::resolve(sc), Design::Streaming);
  run.runToEnd();
  ASSERT_TRUE(run.finished());
  const Machine& m = run.emulation().machine();
  for (const CardTensors& t : run.context().cards)
    for (const Buffer* b : {t.input.x, t.dispatch.expandX, t.experts.expertOut, t.combine.xOut})
      EXPECT_TRUE(b->bytes.empty());
  // Only metadata (ids, counts, ring control lines) has bytes: one small chunk per card.
  EXPECT_LE(m.reservedGmBytes(), static_cast<std::size_t>(m.cardCount()) * (1u << 20))
      << m.reservedGmBytes() << " B of address space for " << m.cardCount() << " cards";
}

// The tokens are an input every design reads and none writes: each run's x reads the bytes
// of the resolved scenario's gating (one copy for all designs, none in the cards' arenas),
// those bytes are the same after both designs ran at once, and a run reading another copy
// of equal tokens gives the same digest. Declaring them dead, or landing a copy in them, is
// refused: their pages are the gating's.
TEST(GmMemory, EveryDesignReadsTheOneCopyOfTheTokens) {
  const Scenario sc = smallFull(DesignSelection::both());
  const ResolvedScenario rs = ResolvedScenario::resolve(sc);
  const std::vector<RankGating> before = *rs.gating();
  const RunReport r = runScenario(rs, true, Fault::None, {}, nullptr, 2);
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_TRUE(r.ok());
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(std::memcmp(before[i].x.data(), (*rs.gating())[i].x.data(),
                          before[i].x.size() * sizeof(bf16)),
              0)
        << "rank " << i << "'s tokens were written";
  const ResolvedScenario copy =
      ResolvedScenario::resolve(sc, std::make_shared<const std::vector<RankGating>>(before));
  for (Design impl : {Design::Phased, Design::Streaming}) {
    LayerRun shared(rs, impl), own(copy, impl);
    for (int c = 0; c < shared.emulation().machine().cardCount(); ++c) {
      const Buffer* x = shared.context().cards[static_cast<std::size_t>(c)].input.x;
      EXPECT_EQ(x->data(), reinterpret_cast<const std::uint8_t*>(
                               (*rs.gating())[static_cast<std::size_t>(c)].x.data()));
      EXPECT_EQ(x->size, static_cast<std::int64_t>(before[0].x.size() * sizeof(bf16)));
    }
    Buffer& x = *shared.context().cards[0].input.x;
    EXPECT_THROW(dropDeadBytes(x, 0, x.size), std::logic_error);
    Buffer& y = *shared.context().cards[1].input.x;  // nor may a copy land in them
    EXPECT_THROW(copyBytes(Region{&x, 0, 64}, Region{&y, 0, 64}), std::logic_error);
    shared.runToEnd();
    own.runToEnd();
    EXPECT_EQ(shared.digest(), own.digest()) << designName(impl);
  }
}
