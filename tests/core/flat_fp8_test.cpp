// The flat full-mesh design and the fp8 dispatch payload: the E4M3 reference by hand and
// against its derived bound, then whole layers in full payload on small shapes (dispatch,
// experts and combine against the golden references), on HCCS and on the switch fabric.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/reference/fp8.h"
#include "core/run/layer_run.h"
#include "core/run/reference_chain.h"
#include "core/runtime/record_layout.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

using namespace moe;
using nlohmann::json;

namespace {

Scenario small(int servers, int cardsPerServer) {
  Scenario s;
  s.name = "flat-fp8-test";
  s.cluster.servers = servers;
  s.cluster.cardsPerServer = cardsPerServer;
  s.hardware.cardsPerServer = cardsPerServer;
  s.model.tokensPerRank = 16;
  s.model.hidden = 256;  // two fp8 scale blocks
  s.model.topk = 4;
  s.model.experts = 2 * servers * cardsPerServer;
  s.model.intermediate = 64;
  s.routing.kind = RoutingKind::PowerLaw;
  s.rings.setBoth(RingTiling{4096, 4, 3, 2, 3});
  return s;
}

std::unique_ptr<LayerRun> runChecked(const Scenario& s, Design impl) {
  auto gating = std::make_shared<const std::vector<RankGating>>(generateGating(s));
  auto run = std::make_unique<LayerRun>(ResolvedScenario::resolve(s, gating), impl);
  run->runToEnd();
  EXPECT_TRUE(run->finished()) << run->emulation().deadlockDiagnosis();
  const ReferenceLayer ref = computeReference(ResolvedScenario::resolve(s, gating));
  int checks = 0;
  for (const VerificationCheck& c : run->verify(ref)) {
    EXPECT_TRUE(c.ok) << designName(impl) << ": " << c.name << ": " << c.detail;
    ++checks;
  }
  EXPECT_GE(checks, 5);  // run, update-expert, layout, dispatch, experts, combine, protocol
  return run;
}

double stageNicBytes(const LayerRun& run, const std::string& stage) {
  for (const StageReport& st : run.stages())
    if (st.name == stage) return st.nicBytes;
  ADD_FAILURE() << "no stage " << stage;
  return 0;
}

}  // namespace

TEST(Fp8Reference, HandWorkedCodes) {
  EXPECT_EQ(floatToE4m3(1.0f), 0x38);
  EXPECT_EQ(floatToE4m3(-1.0f), 0xb8);
  EXPECT_EQ(floatToE4m3(0.5f), 0x30);
  EXPECT_EQ(floatToE4m3(448.0f), 0x7e);
  EXPECT_EQ(floatToE4m3(1000.0f), 0x7e);  // saturates
  EXPECT_EQ(floatToE4m3(std::nanf("")), 0x7f);
  EXPECT_EQ(floatToE4m3(0x1p-9f), 0x01);          // smallest subnormal
  EXPECT_EQ(floatToE4m3(0x1p-10f), 0x00);         // half a step: ties to even (0)
  EXPECT_EQ(floatToE4m3(3 * 0x1p-10f), 0x02);     // 1.5 steps: ties to even (2)
  EXPECT_EQ(floatToE4m3(1.0625f), 0x38);          // halfway 1 / 1.125: even mantissa 0
  EXPECT_EQ(floatToE4m3(1.1875f), 0x3a);          // halfway 1.125 / 1.25: even mantissa 2
  EXPECT_EQ(floatToE4m3(0x1p-6f * 0.99f), 0x08);  // rounds up into the smallest normal
  EXPECT_EQ(e4m3ToFloat(0x7e), 448.0f);
  EXPECT_EQ(e4m3ToFloat(0x01), 0x1p-9f);
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0xff)));
  // Every finite code converts back to itself.
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7f) == 0x7f) continue;
    EXPECT_EQ(floatToE4m3(e4m3ToFloat(static_cast<std::uint8_t>(c))), c) << c;
  }
}

TEST(Fp8Reference, RoundTripStaysWithinTheDerivedBound) {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int H = 384;
  std::vector<bf16> x(H), out(H);
  double worst = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Blocks of very different magnitudes, exact zeros and tiny values next to large ones.
    for (int h = 0; h < H; ++h) {
      const float mag = std::ldexp(1.0f, (h / 128) * 6 - 8 + trial % 5);
      x[h] = floatToBf16(h % 17 == 0 ? 0.0f : normal(gen) * mag * (h % 29 == 0 ? 1e-3f : 1.0f));
    }
    fp8RoundTrip(x.data(), H, out.data());
    for (int h = 0; h < H; ++h) {
      const float xv = bf16ToFloat(x[h]);
      const double bound = fp8RoundTripBound(xv, fp8BlockScale(x.data(), H, h / kFp8Block));
      const double err = std::fabs(double(bf16ToFloat(out[h])) - xv);
      ASSERT_LE(err, bound) << "trial " << trial << " element " << h;
      worst = std::max(worst, err / bound);
    }
  }
  // The bound is not loose by orders of magnitude: some element comes near it.
  EXPECT_GT(worst, 0.5);
}

TEST(Fp8Dispatch, RecordsCarryOneBytePerElementPlusAScalePer128) {
  Scenario s = small(1, 4);
  s.model.hidden = 7168;
  s.model.dispatchDtype = DispatchDtype::Fp8;
  const RecordLayout rec = recordLayout(s);
  EXPECT_EQ(rec.dispatchRowBytes, 7168 + 4 * 56);
  EXPECT_EQ(rec.rowBytes, 2 * 7168);  // combine stays bf16
}

TEST(Fp8Dispatch, ScenarioFieldIsValidatedWithItsPath) {
  json j = scenarioToJson(small(1, 4));
  j["model"]["dispatch_dtype"] = "fp4";
  try {
    scenarioFromJson(j);
    ADD_FAILURE() << "fp4 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "model.dispatch_dtype");
  }
  j["model"]["dispatch_dtype"] = "fp8";
  j["model"]["hidden"] = 200;
  try {
    scenarioFromJson(j);
    ADD_FAILURE() << "fp8 with hidden 200 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "model.dispatch_dtype");
  }
  j["model"]["hidden"] = 256;
  EXPECT_EQ(scenarioFromJson(j).model.dispatchDtype, DispatchDtype::Fp8);
  EXPECT_EQ(scenarioToJson(scenarioFromJson(j))["model"]["dispatch_dtype"], "fp8");
}

TEST(FlatDesign, OneAndTwoServersMatchTheReferencesInFullPayload) {
  runChecked(small(1, 4), Design::Flat);
  const auto run = runChecked(small(2, 4), Design::Flat);
  EXPECT_GT(run->emulation().machine().rdmaPosts, 0);
}

TEST(FlatDesign, SharedExpertAndAddRmsNormMatch) {
  Scenario s = small(2, 2);
  s.combine.sharedExpert = true;
  s.combine.addRmsNorm = true;
  runChecked(s, Design::Flat);
}

TEST(FlatDesign, SendsEachRowOncePerRemoteRankWhereStreamingSendsItOncePerServer) {
  const Scenario s = small(2, 4);
  const auto flat = runChecked(s, Design::Flat);
  const auto streaming = runChecked(s, Design::Streaming);
  const RecordLayout rec = recordLayout(s);
  // NIC bytes of each dispatch, counted from the reference routing.
  const ReferenceLayer ref = computeReference(ResolvedScenario::resolve(s));
  const int R = s.cluster.ranks(), cps = s.cluster.cardsPerServer, K = s.model.topk;
  const int P = ref.updateExpert[0].placePerRank;
  double perRank = 0, perServer = 0;
  for (int src = 0; src < R; ++src) {
    const auto& ue = ref.updateExpert[src];
    for (int t = 0; t < s.model.tokensPerRank; ++t) {
      std::vector<bool> rank(R, false), server(s.cluster.servers, false);
      for (int k = 0; k < K; ++k) {
        const std::size_t i = static_cast<std::size_t>(t) * K + k;
        if (ue.balancedActiveMask && !(*ue.balancedActiveMask)[i]) continue;
        const int d = ue.balancedIds[i] / P;
        if (d / cps == src / cps) continue;
        rank[d] = true;
        server[d / cps] = true;
      }
      for (bool b : rank) perRank += b;
      for (bool b : server) perServer += b;
    }
  }
  EXPECT_DOUBLE_EQ(stageNicBytes(*flat, "dispatch-flat"), perRank * rec.dispatchRecordBytes);
  EXPECT_DOUBLE_EQ(stageNicBytes(*streaming, "dispatch-streaming"),
                   perServer * rec.dispatchRecordBytes);
  EXPECT_GT(perRank, perServer);  // tokens that reach two cards of one remote server
}

TEST(FlatDesign, SwitchFabricRunMatches) {
  Scenario s = small(2, 4);
  s.profileName = "h800-nvswitch";
  s.hardware = builtinProfile("h800-nvswitch");
  s.hardware.cardsPerServer = 4;
  runChecked(s, Design::Flat);
  runChecked(s, Design::Streaming);
}

TEST(Fp8Dispatch, EveryDesignMatchesInFullPayloadAndSendsFewerBytes) {
  Scenario s = small(2, 4);
  s.model.dispatchDtype = DispatchDtype::Fp8;
  s.combine.sharedExpert = true;  // the shared expert sees x itself, not its fp8 round trip
  for (Design impl : {Design::Phased, Design::Streaming, Design::Flat}) runChecked(s, impl);
  Scenario b = s;
  b.model.dispatchDtype = DispatchDtype::Bf16;
  const auto f8 = runChecked(s, Design::Flat);
  const auto b16 = runChecked(b, Design::Flat);
  // Same records, fp8 ones smaller: the NIC bytes scale by the record sizes exactly.
  const double ratio = static_cast<double>(recordLayout(s).dispatchRecordBytes) /
                       static_cast<double>(recordLayout(b).dispatchRecordBytes);
  EXPECT_LT(ratio, 0.75);
  EXPECT_NEAR(stageNicBytes(*f8, "dispatch-flat") / stageNicBytes(*b16, "dispatch-flat"), ratio,
              1e-12);
}
