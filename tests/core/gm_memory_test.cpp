// Issue 12 (memory proportional to what a run holds): GM arenas allocate lazily and reuse
// freed ranges, a CLI run frees each tensor once it is dead and each design's memory before
// the next design starts, payload "none" reserves no GM for data, and none of it changes a
// result or a digest.

#include <gtest/gtest.h>
#include <sys/mman.h>

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

// Resident 4 KiB pages of [p, p + n), from the kernel's page table.
std::size_t residentPages(const std::uint8_t* p, std::size_t n) {
  std::vector<unsigned char> v(n / 4096);
  if (mincore(const_cast<std::uint8_t*>(p), n, v.data()) != 0) return 0;
  return static_cast<std::size_t>(
      std::count_if(v.begin(), v.end(), [](unsigned char r) { return r & 1; }));
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

// A finished arena's chunk goes to the process's pool warm: the next arena is handed the
// same chunk, every byte of it reads as zero, and the pages the first one wrote are still
// resident (no fault, no kernel zeroing on reuse). 4 MiB written in a row hold at least one
// whole 2 MiB unit, resident with huge pages or without.
TEST(GmArena, AFinishedArenasChunkIsReusedWarmAndReadsAsZeros) {
  releaseWarmHostMemory();
  std::uint8_t* first = nullptr;
  {
    GmArena a(true);
    first = a.allocate(4 << 20);
    std::memset(first, 0x5a, 4 << 20);
    std::uint8_t* freed = a.allocate(1 << 20);
    std::memset(freed, 0x33, 1 << 20);
    a.free(freed, 1 << 20);
  }  // `first` is still live when the arena goes: the pool zeroes it
  EXPECT_GE(GmArena::pooledResidentBytes(), std::size_t{2} << 20) << "kept warm";
  GmArena b(true);
  std::uint8_t* again = b.allocate(64 << 20);
  EXPECT_EQ(again, first) << "the pooled chunk is handed out again";
  EXPECT_TRUE(allZero(again, 64 << 20)) << "a warm chunk reads as a fresh one";
  EXPECT_GE(b.residentBytes(), std::size_t{2} << 20) << "its written pages are still resident";
  b.release();
  releaseWarmHostMemory();
  EXPECT_EQ(GmArena::pooledResidentBytes(), 0u);
}

// Pages that dead bytes gave back split their huge page: such a 2 MiB unit goes back to the
// OS whole when the chunk is pooled (so the next run faults it as one huge page, not 4 KiB
// at a time), while a unit written whole stays warm; all of it reads as zero.
TEST(GmArena, ASplitHugePageIsGivenBackWholeWhenItsChunkIsPooled) {
  releaseWarmHostMemory();
  constexpr std::size_t kUnit = 2 << 20;
  std::uint8_t* split = nullptr;
  std::uint8_t* intact = nullptr;
  {
    GmArena a(true);
    const std::size_t n = 16 << 20;
    std::uint8_t* p = a.allocate(n);
    std::memset(p, 0x77, n);
    Buffer b{
        "rows", MemSpace::Gm, 0, -1, static_cast<std::int64_t>(n), ByteStore::view(p, n), nullptr,
        {}};
    // Two whole 2 MiB units inside the buffer, wherever the kernel placed the chunk.
    const auto first = (reinterpret_cast<std::uintptr_t>(p) + kUnit - 1) / kUnit * kUnit;
    intact = reinterpret_cast<std::uint8_t*>(first);
    split = intact + 2 * kUnit;
    dropDeadBytes(b, split - p + (512 << 10), 1 << 20);  // 256 pages in the middle of a unit
    ASSERT_EQ(residentPages(split, kUnit), 256u) << "half the unit's pages are left";
  }
  EXPECT_EQ(residentPages(split, kUnit), 0u) << "the split unit went back whole";
  EXPECT_EQ(residentPages(intact, kUnit), 512u) << "the intact unit stayed warm";
  GmArena b(true);
  EXPECT_TRUE(allZero(b.allocate(64 << 20), 64 << 20));
  b.release();
  releaseWarmHostMemory();
}

// The same run on cold memory and again on the warm memory it left gives the same digest,
// checks and output bytes: reuse never shows in a result.
TEST(GmMemory, ARunOnWarmMemoryGivesWhatItGivesOnColdMemory) {
  for (Design impl : {Design::Phased, Design::Streaming}) {
    const ResolvedScenario rs = ResolvedScenario::resolve(smallFull(impl));
    const ReferenceLayer ref = computeReference(rs);
    releaseWarmHostMemory();
    std::uint64_t digest = 0;
    std::vector<std::uint8_t> out;
    for (int pass = 0; pass < 2; ++pass) {  // the second on the memory the first left
      // Ring pages are cached whatever the kernel's page sizes (GM chunks keep only whole
      // 2 MiB units, and these small rows leave many partly written).
      if (pass == 1 && impl == Design::Streaming) {
        EXPECT_GT(PagePool::cachedSlabBytes(), 0u) << "the first run's ring pages are warm";
      }
      LayerRun run(rs, impl);
      run.runToEnd();
      ASSERT_TRUE(run.finished());
      for (const auto& c : run.verify(ref)) EXPECT_TRUE(c.ok) << c.name << ": " << c.detail;
      const Buffer* x = run.context().cards[3].combine.xOut;
      const std::vector<std::uint8_t> bytes(x->data(), x->data() + x->size);
      if (pass == 0) {
        digest = run.digest();
        out = bytes;
      } else {
        EXPECT_EQ(run.digest(), digest) << designName(impl);
        EXPECT_EQ(bytes, out) << designName(impl);
      }
    }
  }
  releaseWarmHostMemory();
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
