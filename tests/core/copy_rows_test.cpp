// AiCore::copyRows: a series of strided DataCopies issued as one op must move the same
// bytes on the same events at the same times as one copy() per row, including a fence on
// the pipe that waits for rows still in flight.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/runtime/emulation.h"

using namespace moe;

namespace {

struct Outcome {
  Time fenceDone = -1;  // when the program's fence released it
  Time end = -1;        // when the simulation ran out of events
  std::uint64_t events = 0;
  std::uint64_t digest = 0;
  std::int64_t overread = 0;
  std::vector<std::uint8_t> gm;
};

constexpr int kRows = 40;
constexpr std::int64_t kUbStride = 64;

// Stores kRows rows of `width` bytes from UB (stride kUbStride) to GM rows `gmStride`
// apart starting at byte 8 (so the rows straddle the DMA alignment differently), after one
// earlier single copy that is still in flight when the rows start; then fences MTE3.
// `asSeries`: the rows as one copyRows call, else one copy() each.
Outcome storeRows(bool asSeries, std::int64_t width, std::int64_t gmStride) {
  Scenario sc;
  sc.cluster.servers = 1;
  Emulation emu(sc);
  Machine& m = emu.machine();
  AiCore& core = m.aiv(0, 0);
  const std::int64_t gmBytes = 8 + gmStride * kRows + 1024;
  Buffer* gm = m.allocGm(0, gmBytes, "table", false);
  Outcome out;
  auto program = [&](AiCore& c) -> Task {
    // UB is the kernel's own: a launch starts with an empty UB.
    Buffer* ub = m.allocUb(c, kUbStride * (kRows - 1) + width + 64, "rows", false);
    for (std::int64_t i = 0; i < ub->size; ++i) ub->data()[i] = static_cast<std::uint8_t>(i * 7);
    c.copy(Region{gm, gmBytes - 32, 32}, Region{ub, 0, 32});
    const Region dst{gm, 8, width};
    const Region src{ub, 0, width};
    if (asSeries) {
      c.copyRows(dst, gmStride, src, kUbStride, kRows);
    } else {
      for (int i = 0; i < kRows; ++i)
        c.copy(Region{gm, 8 + i * gmStride, width}, Region{ub, i * kUbStride, width});
    }
    co_await c.fence(Pipe::Mte3);
    out.fenceDone = c.sim().now();
  };
  emu.launch(core, Role::LayoutRank, program(core), nullptr);
  emu.sim().run();
  out.end = emu.sim().now();
  out.events = emu.sim().eventsRun();
  out.digest = emu.observer().eventDigest();
  out.overread = m.overreadBytes;
  out.gm.assign(gm->data(), gm->data() + gmBytes);
  return out;
}

void expectSame(const Outcome& series, const Outcome& single) {
  EXPECT_GT(series.fenceDone, 0);
  EXPECT_EQ(series.fenceDone, single.fenceDone);
  EXPECT_EQ(series.end, single.end);
  EXPECT_EQ(series.events, single.events);
  EXPECT_EQ(series.digest, single.digest);
  EXPECT_EQ(series.overread, single.overread);
  EXPECT_EQ(series.gm, single.gm);
}

}  // namespace

TEST(CopyRows, TinyRowsMoveLikeOneCopyEach) {
  const Outcome series = storeRows(true, 8, 264);
  const Outcome single = storeRows(false, 8, 264);
  expectSame(series, single);
  // The rows really landed: row 3 holds UB bytes [3 * kUbStride, + 8).
  for (int b = 0; b < 8; ++b)
    EXPECT_EQ(series.gm[8 + 3 * 264 + b], static_cast<std::uint8_t>((3 * kUbStride + b) * 7));
}

TEST(CopyRows, RowsThroughTheFlowModelMoveLikeOneCopyEach) {
  // 2 KiB rows are above the tiny-copy cut, so each one is a transfer in the flow model.
  expectSame(storeRows(true, 2048, 2056), storeRows(false, 2048, 2056));
}
