// AlltoAll-Matmul-ReduceScatter: fp16 conversion, shape validation (one test per rule),
// reference, and the emulated kernels against the reference within the stated tolerance.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/reference/a2a_matmul_rs.h"
#include "core/run/a2a_matmul_run.h"
#include "core/util/error.h"

using moe::A2aMatmulShape;
using moe::fp16;

namespace {

TEST(Fp16, ExactValuesRoundingSubnormalsAndSpecials) {
  EXPECT_EQ(moe::floatToFp16(1.0f), 0x3c00);
  EXPECT_EQ(moe::floatToFp16(-2.0f), 0xc000);
  EXPECT_EQ(moe::floatToFp16(65504.0f), 0x7bff);
  EXPECT_EQ(moe::floatToFp16(65520.0f), 0x7c00);             // rounds up to inf
  EXPECT_EQ(moe::floatToFp16(1.0f + 0x1p-11f), 0x3c00);      // tie to even (down)
  EXPECT_EQ(moe::floatToFp16(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie to even (up)
  EXPECT_EQ(moe::floatToFp16(0x1p-24f), 0x0001);             // smallest subnormal
  EXPECT_EQ(moe::floatToFp16(0x1p-25f), 0x0000);             // tie to even: zero
  EXPECT_EQ(moe::floatToFp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(moe::fp16ToFloat(moe::floatToFp16(std::nanf("")))));
  EXPECT_EQ(moe::fp16ToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(moe::fp16ToFloat(0x03ff), 1023 * 0x1p-24f);
  EXPECT_EQ(moe::fp16ToFloat(0x8000), -0.0f);
  EXPECT_TRUE(std::signbit(moe::fp16ToFloat(0x8000)));
  // Every finite half survives a round trip through float.
  for (int h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00) continue;
    EXPECT_EQ(moe::floatToFp16(moe::fp16ToFloat(static_cast<fp16>(h))), h) << h;
  }
}

A2aMatmulShape small(int ranks, int m, int n, int k, int tm, int tn, int tk, int stages) {
  A2aMatmulShape s;
  s.ranks = ranks, s.m = m, s.n = n, s.k = k, s.tileM = tm, s.tileN = tn, s.tileK = tk,
  s.stages = stages;
  return s;
}

std::string refusal(const A2aMatmulShape& s, moe::HardwareProfile hw = {}) {
  try {
    moe::validateA2aMatmul(s, hw);
  } catch (const moe::InputError& e) {
    return e.path();
  }
  return "(accepted)";
}

TEST(A2aMatmulValidation, EachRuleNamesItsField) {
  const A2aMatmulShape ok = small(4, 64, 48, 128, 16, 32, 16, 2);
  EXPECT_EQ(refusal(ok), "(accepted)");
  auto with = [&](auto f) {
    A2aMatmulShape s = ok;
    f(s);
    return refusal(s);
  };
  EXPECT_EQ(with([](auto& s) { s.ranks = 1; }), "workload.ranks");
  EXPECT_EQ(with([](auto& s) {
              s.ranks = 12;
              s.m = 96;
              s.k = 192;
            }),
            "workload.ranks");  // not whole servers
  EXPECT_EQ(with([](auto& s) { s.m = 0; }), "workload.m");
  EXPECT_EQ(with([](auto& s) { s.n = -1; }), "workload.n");
  EXPECT_EQ(with([](auto& s) { s.k = 70000; }), "workload.k");
  EXPECT_EQ(with([](auto& s) { s.tileM = 0; }), "workload.tile_m");
  EXPECT_EQ(with([](auto& s) { s.stages = 0; }), "workload.stages");
  EXPECT_EQ(with([](auto& s) { s.stages = 9; }), "workload.stages");
  EXPECT_EQ(with([](auto& s) { s.m = 66; }), "workload.m");           // M % r
  EXPECT_EQ(with([](auto& s) { s.k = 130; }), "workload.k");          // K % r
  EXPECT_EQ(with([](auto& s) { s.tileM = 5; }), "workload.tile_m");   // tile_m | M/r
  EXPECT_EQ(with([](auto& s) { s.tileK = 24; }), "workload.tile_k");  // tile_k | K/r
  EXPECT_EQ(with([](auto& s) { s.tileK = 8; }), "workload.tile_k");   // 32-B UB rows
  EXPECT_EQ(with([](auto& s) { s.tileN = 64; }), "workload.tile_n");  // tile_n <= n
  // L0A, L0B, L0C, L1 and UB, each with a profile whose buffer is the one too small.
  moe::HardwareProfile hw;
  hw.l0aBytes = 256;
  EXPECT_EQ(refusal(ok, hw), "workload.tile_k");
  hw = {};
  hw.l0bBytes = 512;
  EXPECT_EQ(refusal(ok, hw), "workload.tile_n");
  hw = {};
  hw.l0cBytes = 1024;
  EXPECT_EQ(refusal(ok, hw), "workload.tile_m");
  hw = {};
  hw.l1Bytes = 4096;
  EXPECT_EQ(refusal(ok, hw), "workload.tile_n");
  hw = {};
  hw.ubBytes = 4096;
  EXPECT_EQ(refusal(ok, hw), "workload.tile_n");
  hw = {};
  hw.ubBytes = 17 * 32 * 10 + 32;  // the reducer fits but not the pusher's two chunks
  EXPECT_EQ(refusal(small(4, 64, 32, 1024, 16, 2, 256, 2), hw), "workload.tile_k");
  hw = {};
  hw.aivCores = 2;
  EXPECT_EQ(refusal(ok, hw), "hardware.overrides.aiv_cores");
  // Absurd sizes are refused before anything is allocated.
  EXPECT_EQ(refusal(small(8, 65536, 65536, 65536, 64, 128, 128, 2)), "workload");
}

// r ranks of random data; the reference against a naive double-precision GEMM.
TEST(A2aMatmulReference, MatchesDoublePrecisionGemm) {
  const A2aMatmulShape s = small(2, 8, 5, 6, 2, 5, 3, 1);
  const auto in = moe::generateA2aMatmulInputs(s, 7);
  const auto ref = moe::a2aMatmulReference(in);
  for (int i = 0; i < s.m; ++i)
    for (int c = 0; c < s.n; ++c) {
      double want = 0;
      for (int k = 0; k < s.k; ++k)
        want += double(moe::fp16ToFloat(in.a[i / 4][(i % 4) * s.k + k])) *
                moe::fp16ToFloat(in.w[k / 3][(k % 3) * s.n + c]);
      EXPECT_NEAR(ref.exact[i / 4][(i % 4) * s.n + c], want, 1e-5);
    }
  // The comparison catches a wrong element.
  auto bad = ref.out;
  bad[1][3] = moe::floatToFp16(moe::fp16ToFloat(bad[1][3]) + 1.0f);
  EXPECT_NE(moe::compareWithReference(ref, bad), "");
  EXPECT_EQ(moe::compareWithReference(ref, ref.out), "");
}

struct KernelCase {
  A2aMatmulShape shape;
};

class A2aMatmulKernel : public ::testing::TestWithParam<A2aMatmulShape> {};

TEST_P(A2aMatmulKernel, PipelinedAndSequentialMatchTheReference) {
  const A2aMatmulShape s = GetParam();
  const auto in = moe::generateA2aMatmulInputs(s, 3);
  const auto ref = moe::a2aMatmulReference(in);
  for (bool pipelined : {true, false}) {
    const auto run = moe::runA2aMatmul(moe::Scenario{}, in, pipelined);
    ASSERT_TRUE(run.run.finished) << run.run.deadlockText();
    EXPECT_EQ(moe::compareWithReference(ref, run.out), "")
        << (pipelined ? "pipelined" : "sequential");
    EXPECT_GT(run.run.end, 0);
  }
}

// r = 2, 4, 8, 16 (two servers: RDMA paths); non-square; N not a multiple of tile_n;
// STAGES 1..4.
INSTANTIATE_TEST_SUITE_P(Shapes, A2aMatmulKernel,
                         ::testing::Values(small(2, 32, 40, 64, 8, 16, 16, 1),     // N tail 8
                                           small(4, 64, 48, 128, 8, 32, 16, 2),    // N tail 16
                                           small(8, 64, 24, 256, 8, 16, 32, 3),    // N tail 8
                                           small(16, 64, 32, 256, 4, 32, 16, 4),   // two servers
                                           small(4, 128, 20, 64, 16, 16, 16, 1),   // tall, N tail 4
                                           small(2, 16, 64, 512, 8, 64, 64, 4)));  // K >> M

TEST(A2aMatmulKernelTiming, PipelinedBeatsSequentialOnTheDefaultShape) {
  const moe::Scenario sc;
  const auto s = moe::shapeFromWorkload(sc.workload);
  const auto in = moe::generateA2aMatmulInputs(s, sc.seed);
  const auto pipe = moe::runA2aMatmul(sc, in, true);
  const auto seq = moe::runA2aMatmul(sc, in, false);
  ASSERT_TRUE(pipe.run.finished && seq.run.finished);
  EXPECT_LT(pipe.run.end, seq.run.end);
  ASSERT_EQ(seq.run.stages.size(), 3u);
  EXPECT_EQ(seq.run.stages[0].id, moe::StageId::AllToAll);
  EXPECT_EQ(seq.run.stages[0].name, "all-to-all");
  EXPECT_GT(seq.run.stageTime(moe::StageId::ReduceScatter), 0);
  EXPECT_EQ(seq.run.stageTime(moe::StageId::A2aMatmulRs), 0) << "the baseline has no fused stage";
  // STAGES bounds the slots.
  EXPECT_LE(pipe.run.buffers.workspaceBytes, seq.run.buffers.workspaceBytes);
  // The measured peak is in use for real, and never more than what was allocated.
  for (const auto* r : {&pipe, &seq}) {
    EXPECT_GT(r->workspacePeakInUseBytes, 0);
    EXPECT_LE(r->workspacePeakInUseBytes, r->run.buffers.workspaceBytes);
  }
}

}  // namespace

namespace {

// --- The steppable run (the workbench's and the CLI's one code path) ---

moe::Scenario smallA2aScenario(int stages) {
  moe::Scenario sc;
  sc.workload.kind = moe::WorkloadKind::AlltoallMatmulRs;
  sc.workload.ranks = 4, sc.workload.m = 128, sc.workload.n = 96, sc.workload.k = 512;
  sc.workload.tileM = 16, sc.workload.tileN = 32, sc.workload.tileK = 32,
  sc.workload.stages = stages;
  return sc;
}

TEST(A2aMatmulRun, SteppingInPiecesGivesTheDigestOfRunningToTheEnd) {
  for (bool pipelined : {true, false}) {
    const moe::Scenario sc = smallA2aScenario(2);
    moe::A2aMatmulRun whole(moe::ResolvedScenario::resolve(sc), pipelined);
    whole.runToEnd();
    ASSERT_TRUE(whole.finished());
    moe::A2aMatmulRun pieces(moe::ResolvedScenario::resolve(sc), pipelined);
    // Uneven slices: one event, then growing runs of events, as the worker's slices are.
    std::uint64_t slice = 1;
    while (!pieces.finished()) {
      for (std::uint64_t i = 0; i < slice && pieces.step(); ++i) {
      }
      slice = slice * 3 + 1;
    }
    EXPECT_EQ(pieces.emulation().sim().eventsRun(), whole.emulation().sim().eventsRun());
    EXPECT_EQ(pieces.digest(), whole.digest()) << pieces.design();
    EXPECT_EQ(pieces.result().digest, moe::runA2aMatmul(sc, pieces.inputs(), pipelined).run.digest);
    const auto checks = pieces.verifyAgainstReference();
    ASSERT_EQ(checks.size(), 2u);
    for (const auto& c : checks) EXPECT_TRUE(c.ok) << c.name << ": " << c.detail;
  }
}

TEST(A2aMatmulRun, SequentialStagesRunInOrderAndEndDone) {
  moe::A2aMatmulRun run(moe::ResolvedScenario::resolve(smallA2aScenario(2)), false);
  EXPECT_EQ(run.currentStage(), "not started");
  std::vector<std::string> seen;
  auto note = [&] {
    if (seen.empty() || seen.back() != run.currentStage()) seen.push_back(run.currentStage());
  };
  while (run.step()) note();
  note();  // the event that finished the run
  EXPECT_EQ(seen, (std::vector<std::string>{"all-to-all", "matmul", "reduce-scatter", "done"}));
  EXPECT_TRUE(run.finished());
  EXPECT_FALSE(run.deadlocked());
}

// Observed after every event: the a2a and partial-sum strips never hold more than STAGES
// items, full slots really have their flag set, and the stages are actually used.
TEST(A2aMatmulRun, WorkspaceOccupancyNeverExceedsStages) {
  for (int stages : {1, 2, 4}) {
    moe::A2aMatmulRun run(moe::ResolvedScenario::resolve(smallA2aScenario(stages)), true);
    int peakA2a = 0, peakPartial = 0;
    bool sawFull = false, sawReading = false;
    do {
      for (const moe::WorkspaceStages& w : run.emulation().workspaceStages()) {
        if (w.group() == "reduce-scatter buffer") continue;  // full size, not bounded by STAGES
        ASSERT_LE(w.occupied(), stages) << w.name();
        ASSERT_LE(w.slotCount(), stages) << w.name();
        int& peak = w.group() == "a2a input" ? peakA2a : peakPartial;
        peak = std::max(peak, w.occupied());
        for (int s = 0; s < w.slotCount(); ++s) {
          sawFull = sawFull || w.state(s) == moe::SlotState::Full;
          sawReading = sawReading || w.state(s) == moe::SlotState::Reading;
        }
      }
    } while (run.step());
    ASSERT_TRUE(run.finished());
    EXPECT_EQ(peakA2a, stages) << "the pushers run ahead until every stage is in use";
    EXPECT_GE(peakPartial, 1);
    EXPECT_TRUE(sawFull && sawReading);
    EXPECT_TRUE(run.emulation().violations().empty()) << run.emulation().violations().front();
    for (const moe::WorkspaceStages& w : run.emulation().workspaceStages()) {
      EXPECT_EQ(w.occupied(), 0) << w.name() << " still holds data at the end";
      EXPECT_LE(w.stats().peakOccupied, w.slotCount()) << w.name();
    }
  }
}

TEST(A2aMatmulRun, CompletionReportsTheRunNotFinishedBeforeTheEnd) {
  moe::A2aMatmulRun run(moe::ResolvedScenario::resolve(smallA2aScenario(2)), true);
  for (int i = 0; i < 100; ++i) run.step();
  const auto c = run.completion();
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.name, "pipelined run completed");
}

TEST(A2aMatmulRun, BadShapeIsRefusedNamingTheField) {
  moe::Scenario sc = smallA2aScenario(2);
  sc.workload.m = 130;
  try {
    moe::A2aMatmulRun run(moe::ResolvedScenario::resolve(sc), true);
    FAIL() << "accepted";
  } catch (const moe::InputError& e) {
    EXPECT_EQ(e.path(), "workload.m");
  }
}

// --- WorkspaceStages on its own: the protocol checks it makes ---

TEST(WorkspaceStages, FlagDecidesFullAndReadsReleaseTheSlot) {
  moe::Emulation emu(moe::Scenario{});
  moe::Word* flag = emu.machine().makeWord(0, "flag");
  moe::WorkspaceStages& w = emu.addWorkspaceStages("test stages", "test", 0, 2, 1024);
  EXPECT_EQ(w.state(0), moe::SlotState::Free);
  w.claim(0, 7, 2, flag, 1);
  EXPECT_EQ(w.state(0), moe::SlotState::Filling);
  EXPECT_EQ(w.occupied(), 1);
  emu.machine().setWord(*flag, 1);
  EXPECT_EQ(w.state(0), moe::SlotState::Full);
  w.beginRead(0);
  EXPECT_EQ(w.state(0), moe::SlotState::Reading);
  w.endRead(0);
  EXPECT_EQ(w.state(0), moe::SlotState::Full) << "one of two readers left";
  w.beginRead(0);
  w.endRead(0);
  EXPECT_EQ(w.state(0), moe::SlotState::Free);
  EXPECT_EQ(w.item(0), 7);
  EXPECT_EQ(w.uses(0), 1);
  EXPECT_EQ(w.occupied(), 0);
  EXPECT_EQ(w.stats().peakOccupied, 1);
  EXPECT_TRUE(w.violations().empty());
  ASSERT_EQ(emu.observer().workspaceSamples().items().size(), 2u);  // claim, release
  EXPECT_EQ(emu.observer().workspaceSamples().items().back().occupied, 0);
}

TEST(WorkspaceStages, OverwriteAndEarlyReadAreViolations) {
  moe::Emulation emu(moe::Scenario{});
  moe::Word* flag = emu.machine().makeWord(0, "flag");
  moe::WorkspaceStages& w = emu.addWorkspaceStages("test stages", "test", 0, 1, 1024);
  w.claim(0, 0, 1, flag, 1);
  w.beginRead(0);  // the flag is still 0
  ASSERT_EQ(w.violations().size(), 1u);
  EXPECT_NE(w.violations()[0].find("read before its flag said full"), std::string::npos);
  w.claim(0, 1, 1, flag, 2);  // item 0 was never read
  ASSERT_EQ(w.violations().size(), 2u);
  EXPECT_NE(w.violations()[1].find("still has 1 unfinished readers"), std::string::npos);
  w.endRead(0);  // no read began
  EXPECT_EQ(w.violations().size(), 3u);
  EXPECT_EQ(emu.violations().size(), 3u)
      << "the emulation collects strip violations for verification";
}

}  // namespace
