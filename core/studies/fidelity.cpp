#include "core/studies/fidelity.h"

#include <algorithm>

#include "core/machine/hardware_profile.h"
#include "core/run/run_factory.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

namespace moe {

namespace {

// DeepEP V1's published H800 figures (deepseek-ai/DeepEP docs/legacy.md, "Performance").
PublishedFigures normalPublished(int ep) {
  switch (ep) {
    case 8:
      return {153, 158, 0, 0};  // NVLink
    case 16:
      return {43, 43, 0, 0};  // RDMA
    case 32:
      return {58, 57, 0, 0};
    case 64:
      return {51, 50, 0, 0};
    default:
      return {};
  }
}

PublishedFigures lowLatencyPublished(int ep) {
  switch (ep) {
    case 8:
      return {98, 127, 77, 114};
    case 16:
      return {63, 74, 118, 195};
    case 32:
      return {48, 53, 155, 273};
    case 64:
      return {43, 46, 173, 314};
    case 128:
      return {39, 39, 192, 369};
    case 256:
      return {39, 40, 194, 360};
    default:
      return {};
  }
}

Scenario baseScenario(const HardwareProfile& profile, int ep, int tokens) {
  Scenario s;
  s.seed = 1;
  s.profileName = profile.name;
  s.hardware = profile;
  s.cluster.cardsPerServer = profile.cardsPerServer;
  s.cluster.servers = std::max(1, ep / profile.cardsPerServer);
  s.model.tokensPerRank = tokens;
  s.model.hidden = 7168;
  s.model.experts = 256;
  s.model.topk = 8;
  s.model.dispatchDtype = DispatchDtype::Fp8;
  s.payload = PayloadMode::None;
  // The largest chunk whose double-buffered staging still fits a sender's 228 KiB of shared
  // memory next to its routing (DeepEP's tests likewise keep their best chunk size).
  s.rings.setBoth(&RingTiling::chunkBytes, 98304);
  s.rings.setBoth(&RingTiling::queueChunks, 16);
  return s;
}

// What carries the traffic inside a server, for labels: NVLink on the H800, UB on an A3
// supernode, HCCS on A2.
const char* intraServerLink(const Scenario& sc) {
  if (sc.hardware.product == "A3") return "UB";
  if (sc.hardware.product == "A2") return "HCCS";
  return "NVLink";
}

int localExperts(const Scenario& sc) {
  return sc.model.experts / sc.cluster.ranks();
}

}  // namespace

std::vector<FidelityCase> deepEpCases(const HardwareProfile& profile, int normalTokens) {
  std::vector<FidelityCase> cases;
  for (int ep : {8, 16, 32, 64}) {
    FidelityCase c;
    c.mode = FidelityMode::Normal;
    c.ep = ep;
    c.design = Design::Streaming;  // hierarchical: RDMA to the same local index, then forward
    c.scenario = baseScenario(profile, ep, normalTokens);
    Scenario& s = c.scenario;
    s.name = "deepep-normal-ep" + std::to_string(ep);
    s.dispatchImpl = c.design;
    // DeepEP's 24 SMs as 8 sender + 8 forwarder + 8 receiver, on one server too: there the
    // dispatch forwarder has nothing to do, but the streaming combine still sums each
    // token's partials on forwarder cores (one forwarder per card made it the bottleneck:
    // 30.7 ms against 15.9 ms with 8 at 4096 tokens).
    s.rings.setBoth(&RingTiling::senderCores, 8);
    s.rings.setBoth(&RingTiling::forwarderCores, 8);
    s.rings.setBoth(&RingTiling::receiverCores, 8);
    // DeepEP's combine takes one row per (token, rank): its caller has already summed the
    // rank's experts. The senders do that sum here, so the same rows cross the wire.
    s.combine.sumLocalExperts = true;
    // And its forwarders sum a node's rows in fp32 but send the partial as bf16 (the RDMA
    // buffer holds the combine's dtype): half the bytes of an fp32 partial.
    s.combine.partialDtype = PartialDtype::Bf16;
    if (s.cluster.servers == 1) {
      // test_intranode.py: plain top-8 of random scores.
      s.routing.kind = RoutingKind::Uniform;
    } else {
      // test_internode.py: one expert group per node, top-min(nodes, 4) groups.
      s.routing.kind = RoutingKind::GroupLimited;
      s.routing.groups = s.cluster.servers;
      s.routing.topkGroups = std::min(s.cluster.servers, 4);
    }
    c.published = normalPublished(ep);
    c.calibration = ep == 8;
    cases.push_back(std::move(c));
  }
  for (int ep : {8, 16, 32, 64, 128, 256}) {
    FidelityCase c;
    c.mode = FidelityMode::LowLatency;
    c.ep = ep;
    c.design = Design::Flat;
    c.scenario = baseScenario(profile, ep, 128);
    Scenario& s = c.scenario;
    s.name = "deepep-low-latency-ep" + std::to_string(ep);
    s.dispatchImpl = c.design;
    s.routing.kind = RoutingKind::Uniform;  // test_low_latency.py: plain top-8
    s.rings.setBoth(&RingTiling::senderCores, 12);
    s.rings.setBoth(&RingTiling::forwarderCores, 1);  // the flat design has no forwarder
    s.rings.setBoth(&RingTiling::receiverCores, 11);
    // EP 256 has some 65,000 transfers in flight in the combine, and an exact max-min solve
    // at every start and end re-rates thousands of them each time (over 20 minutes of
    // engine time). Solving at most every 20 ns runs it in minutes; at EP 128 that costs
    // +0.4 % dispatch and +0.4 % combine time against the exact solve (docs/FIDELITY.md).
    if (ep == 256) s.bandwidthUpdateNs = 20;
    c.published = lowLatencyPublished(ep);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string_view fidelityTargetName(FidelityTarget t) {
  return t == FidelityTarget::AscendA3 ? "ascend-a3" : "h800";
}

std::optional<FidelityTarget> fidelityTargetFromName(std::string_view name) {
  for (FidelityTarget t : {FidelityTarget::H800, FidelityTarget::AscendA3})
    if (fidelityTargetName(t) == name) return t;
  return std::nullopt;
}

std::vector<FidelityCase> fidelityCases(FidelityTarget t, int normalTokens) {
  if (t == FidelityTarget::AscendA3)
    return ascendA3Cases(builtinProfile("atlas-a3-superpod"), normalTokens);
  return deepEpCases(builtinProfile("h800-nvswitch"), normalTokens);
}

std::vector<FidelityCase> ascendA3Cases(const HardwareProfile& profile, int normalTokens) {
  std::vector<FidelityCase> cases;
  auto shape = [&](FidelityMode mode, int ep, int tokens) {
    FidelityCase c;
    c.mode = mode;
    c.ep = ep;
    c.design = Design::Flat;  // one UB domain: no slow tier to forward across
    c.scenario = baseScenario(profile, ep, tokens);
    Scenario& s = c.scenario;
    s.name = std::string("a3-") + (mode == FidelityMode::Normal ? "normal" : "low-latency") +
             "-ep" + std::to_string(ep);
    // Every die in one UB domain: the supernode's switch joins all of them.
    s.cluster.servers = 1;
    s.cluster.cardsPerServer = ep;
    s.hardware.cardsPerServer = ep;
    s.model.dispatchDtype = DispatchDtype::Int8;
    s.dispatchImpl = c.design;
    s.routing.kind = RoutingKind::Uniform;  // plain top-8 of random scores
    // 48 AIV cores per die: 24 senders and 23 receivers (the flat design leaves the
    // forwarder slot idle).
    s.rings.setBoth(&RingTiling::senderCores, profile.aivCores / 2);
    s.rings.setBoth(&RingTiling::forwarderCores, 1);
    s.rings.setBoth(&RingTiling::receiverCores, profile.aivCores - profile.aivCores / 2 - 1);
    // The largest power-of-two chunk whose double-buffered staging fits the sender's UB
    // next to its routing tables (192 KiB UB: 64 KiB).
    s.rings.setBoth(&RingTiling::chunkBytes, 65536);
    cases.push_back(std::move(c));
  };
  for (int ep : {8, 16, 32, 64, 128}) shape(FidelityMode::Normal, ep, normalTokens);
  for (int ep : {8, 16, 32}) shape(FidelityMode::LowLatency, ep, 128);
  return cases;
}

DeepEpBytes normalModeBytes(const std::vector<RankGating>& gating, const Scenario& sc) {
  const int R = sc.cluster.ranks(), cps = sc.cluster.cardsPerServer, K = sc.model.topk;
  const int BS = sc.model.tokensPerRank, P = localExperts(sc);
  const double row = 2.0 * sc.model.hidden;  // bf16 bytes of one token
  // The wire row against a bf16 one: fp8 (1 + 4/128) / 2 (a scale per 128 elements), int8
  // (1 + 4/H) / 2 (one scale per token).
  const double H = sc.model.hidden;
  const double fp8 = sc.model.dispatchDtype == DispatchDtype::Fp8    ? (1 + 4.0 / 128) / 2
                     : sc.model.dispatchDtype == DispatchDtype::Int8 ? (1 + 4.0 / H) / 2
                                                                     : 1.0;
  DeepEpBytes b;
  if (sc.cluster.servers == 1) {
    // recv_x.numel() * 2 on rank 0: every source token routed to rank 0 once.
    double tokens = 0;
    for (int s = 0; s < R; ++s)
      for (int t = 0; t < BS; ++t) {
        bool toZero = false;
        for (int k = 0; k < K; ++k) toZero = toZero || gating[s].topkIds[t * K + k] / P == 0;
        tokens += toZero;
      }
    b.dispatch = tokens * row * fp8;
    b.combine = tokens * row;
    b.link = intraServerLink(sc);
  } else {
    // num_rdma_token_sent on rank 0: distinct destination nodes per token, own included.
    double sent = 0;
    std::vector<bool> node(static_cast<std::size_t>(sc.cluster.servers));
    for (int t = 0; t < BS; ++t) {
      std::fill(node.begin(), node.end(), false);
      for (int k = 0; k < K; ++k)
        node[static_cast<std::size_t>(gating[0].topkIds[t * K + k] / P / cps)] = true;
      sent += static_cast<double>(std::count(node.begin(), node.end(), true));
    }
    b.dispatch = sent * row * fp8;
    b.combine = sent * row;
    b.link = "RDMA";
  }
  return b;
}

DeepEpBytes lowLatencyBytes(const std::vector<RankGating>& gating, const Scenario& sc) {
  const double H = sc.model.hidden;
  // Every gating slot is a kept selection (the generator masks none).
  const double selections = static_cast<double>(gating[0].topkIds.size());
  DeepEpBytes b;
  // fp8: H codes, a scale per 128 elements and 16 B of header; int8: one scale per token.
  b.dispatch = selections *
               (sc.model.dispatchDtype == DispatchDtype::Int8 ? H + 4 + 16 : H + H / 128 * 4 + 16);
  b.combine = selections * H * 2;
  b.link = sc.hardware.product == "A3" ? intraServerLink(sc) : "RDMA";
  return b;
}

FidelityResult runFidelityCase(const FidelityCase& c) {
  FidelityResult r;
  r.c = c;
  try {
    validateScenario(c.scenario);  // the scenario's own rules first, with their field paths
    const ResolvedScenario rs = ResolvedScenario::resolve(c.scenario);
    r.bytes = c.mode == FidelityMode::Normal ? normalModeBytes(*rs.gating(), rs.scenario())
                                             : lowLatencyBytes(*rs.gating(), rs.scenario());
    auto run = makeRun(rs, c.design);
    run->runToEnd();
    const RunResult res = run->result();
    if (!res.finished) {
      r.notRun = "the run did not finish: " + res.deadlockDiagnosis;
      return r;
    }
    r.dispatchUs = toMicroseconds(res.stageTime(StageId::Dispatch));
    r.combineUs = toMicroseconds(res.stageTime(StageId::Combine));
  } catch (const InputError& e) {
    r.notRun = e.path() + ": " + e.rule();
  }
  return r;
}

}  // namespace moe
