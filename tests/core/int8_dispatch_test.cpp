// The INT8 dispatch payload (Ascend's dynamic per-token quantization): the reference by hand
// and against its derived bound, the wire format, and whole layers in full payload on
// 2 servers x 8 cards x 128 tokens for every design, against the golden references.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/reference/dispatch_quant.h"
#include "core/reference/int8.h"
#include "core/run/layer_run.h"
#include "core/run/reference_chain.h"
#include "core/runtime/record_layout.h"
#include "core/scenario/scenario_json.h"

using namespace moe;

namespace {

TEST(Int8Reference, HandWorkedCodesRoundHalfToEvenAndScaleByTheRowMax) {
  // amax 2.54 -> scale 0.02; x / scale: 127, -63.5 (-> -64, even), 0.5 (-> 0, even), 1.5 (-> 2).
  const float s = 2.54f / 127.0f;
  std::vector<bf16> x = {floatToBf16(2.54f), floatToBf16(-63.5f * s), floatToBf16(0.5f * s),
                         floatToBf16(1.5f * s)};
  // bf16 rounds the inputs: compute the expected codes from the values actually stored.
  float amax = 0;
  for (bf16 v : x) amax = std::max(amax, std::fabs(bf16ToFloat(v)));
  const float scale = amax / 127.0f;
  std::vector<std::int8_t> q(4);
  float got = 0;
  quantizeRowInt8(x.data(), 4, q.data(), &got);
  EXPECT_EQ(got, scale);
  EXPECT_EQ(q[0], 127);
  for (int h = 1; h < 4; ++h)
    EXPECT_EQ(q[h], static_cast<std::int8_t>(std::nearbyint(bf16ToFloat(x[h]) * (127.0f / amax))))
        << h;
  // An all-zero row keeps a positive scale (amax clamped at 1e-4) and zero codes.
  std::vector<bf16> zeros(8, floatToBf16(0.0f));
  std::vector<std::int8_t> qz(8, 1);
  quantizeRowInt8(zeros.data(), 8, qz.data(), &got);
  EXPECT_FLOAT_EQ(got, 1e-4f / 127.0f);
  for (std::int8_t c : qz) EXPECT_EQ(c, 0);
}

TEST(Int8Reference, RoundTripStaysWithinTheDerivedBound) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int H = 384;
  std::vector<bf16> x(H), out(H);
  std::vector<double> bounds(H);
  double worst = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const float mag = std::ldexp(1.0f, trial % 13 - 6);
    for (int h = 0; h < H; ++h)
      x[h] = floatToBf16(h % 17 == 0 ? 0.0f : normal(gen) * mag * (h % 29 == 0 ? 1e-3f : 1.0f));
    int8RoundTrip(x.data(), H, out.data());
    quantRoundTripBounds(DispatchDtype::Int8, x.data(), H, bounds.data());
    for (int h = 0; h < H; ++h) {
      const double err = std::fabs(double(bf16ToFloat(out[h])) - bf16ToFloat(x[h]));
      ASSERT_LE(err, bounds[h]) << "trial " << trial << " element " << h;
      worst = std::max(worst, err / bounds[h]);
    }
  }
  EXPECT_GT(worst, 0.5) << "the bound is not loose by orders of magnitude";
}

TEST(Int8Dispatch, ARowIsHCodesAndOneScaleAndTheFieldIsASpelling) {
  Scenario s;
  s.model.hidden = 7168;
  s.model.dispatchDtype = DispatchDtype::Int8;
  EXPECT_EQ(recordLayout(s).dispatchRowBytes, 7168 + 4);
  EXPECT_EQ(quantRowBytes(DispatchDtype::Int8, 7168), 7172);
  auto j = scenarioToJson(s);
  EXPECT_EQ(j["model"]["dispatch_dtype"], "int8");
  EXPECT_EQ(scenarioFromJson(j).model.dispatchDtype, DispatchDtype::Int8);
  // Unlike fp8, int8 has one scale per token: any hidden size is fine.
  j["model"]["hidden"] = 200;
  EXPECT_EQ(scenarioFromJson(j).model.hidden, 200);
}

Scenario twoServersOfEight() {
  Scenario s;
  s.name = "int8-dispatch-test";
  s.cluster.servers = 2;
  s.cluster.cardsPerServer = 8;
  s.hardware.cardsPerServer = 8;
  s.model.tokensPerRank = 128;
  s.model.hidden = 256;
  s.model.topk = 8;
  s.model.experts = 32;
  s.model.intermediate = 64;
  s.model.dispatchDtype = DispatchDtype::Int8;
  s.routing.kind = RoutingKind::PowerLaw;
  s.rings.setBoth(RingTiling{8192, 4, 3, 3, 3});
  s.combine.sharedExpert = true;  // the shared expert sees x itself, not its round trip
  return s;
}

TEST(Int8Dispatch, EveryDesignVerifiesInFullPayloadOnTwoServersOfEight) {
  const Scenario s = twoServersOfEight();
  auto gating = std::make_shared<const std::vector<RankGating>>(generateGating(s));
  const ReferenceLayer ref = computeReference(ResolvedScenario::resolve(s, gating));
  for (Design impl : {Design::Phased, Design::Streaming, Design::Flat}) {
    LayerRun run(ResolvedScenario::resolve(s, gating), impl);
    run.runToEnd();
    ASSERT_TRUE(run.finished()) << run.emulation().deadlockDiagnosis();
    bool sawInt8Check = false;
    for (const VerificationCheck& c : run.verify(ref)) {
      EXPECT_TRUE(c.ok) << designName(impl) << ": " << c.name << ": " << c.detail;
      sawInt8Check = sawInt8Check || c.name.find("int8") != std::string::npos;
    }
    EXPECT_TRUE(sawInt8Check) << designName(impl) << ": the dispatch check names the int8 bound";
  }
}

}  // namespace
