#include "core/pipeline/layer_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/kernels/dispatch_common.h"
#include "core/kernels/kernels.h"
#include "core/pipeline/expert_balance.h"
#include "core/pipeline/memory_estimate.h"
#include "core/plan/dispatch_tiling.h"
#include "core/reference/a2a_matmul_rs.h"
#include "core/reference/combine_reference.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"
#include "core/util/hash.h"

namespace moe {

std::pair<std::vector<std::int32_t>, int> scenarioTable(const Scenario& sc) {
  if (sc.eplb.tableFrom != EplbTableSource::Explicit)
    throw std::logic_error(
        "scenarioTable: the table is generated; use withEplbTable(scenario) first");
  if (sc.eplb.table.empty()) {
    std::vector<std::int32_t> t;
    for (int e = 0; e < sc.model.experts; ++e) t.insert(t.end(), {1, e});
    return {t, 2};
  }
  const int F = static_cast<int>(sc.eplb.table.front().size());
  std::vector<std::int32_t> t;
  for (const auto& row : sc.eplb.table) t.insert(t.end(), row.begin(), row.end());
  return {t, F};
}

UpdateExpertArgs updateExpertArgs(const Scenario& sc, const RankGating& g, int rank) {
  UpdateExpertArgs a;
  a.bs = sc.model.tokensPerRank;
  a.k = sc.model.topk;
  a.expertIds = g.topkIds;
  a.numExperts = sc.model.experts;
  std::tie(a.eplbTable, a.tableCols) = scenarioTable(sc);
  a.localRankId = rank;
  a.worldSize = sc.cluster.ranks();
  a.balanceMode = sc.eplb.balanceMode;
  if (!sc.eplb.pruningThreshold.empty()) {
    a.expertScales = g.topkWeights;
    a.pruningThreshold = sc.eplb.pruningThreshold;
    const int active = sc.eplb.activeTokens < 0 ? a.bs : sc.eplb.activeTokens;
    std::vector<std::uint8_t> m(a.bs, 0);
    std::fill(m.begin(), m.begin() + active, 1);
    a.activeMask = m;
  }
  return a;
}

ReferenceLayer computeReference(const Scenario& given,
                                std::shared_ptr<const std::vector<RankGating>> gatingPtr) {
  const Scenario sc = withEplbTable(given);
  ReferenceLayer ref;
  ref.gating = gatingPtr;
  const std::vector<RankGating>& gating = *gatingPtr;
  const int R = sc.cluster.ranks(), K = sc.model.topk, BS = sc.model.tokensPerRank;
  std::vector<DispatchSource> sources(R);
  int P = 0;
  for (int r = 0; r < R; ++r) {
    ref.updateExpert.push_back(updateExpertReference(updateExpertArgs(sc, gating[r], r)));
    const auto& ue = ref.updateExpert.back();
    P = ue.placePerRank;
    DispatchSource& s = sources[r];
    s.ids = ue.balancedIds;
    s.weights = gating[r].topkWeights;
    s.mask = ue.balancedActiveMask.value_or(
        std::vector<std::uint8_t>(static_cast<std::size_t>(BS) * K, 1));
    LayoutArgs la;
    la.numTokens = BS;
    la.numTopk = K;
    la.topkIdx = s.ids;
    for (std::size_t i = 0; i < la.topkIdx.size(); ++i)
      if (!s.mask[i]) la.topkIdx[i] = -1;
    la.numRanks = R;
    la.numExperts = R * P;
    la.ranksPerServer = sc.cluster.cardsPerServer;
    ref.layout.push_back(layoutReference(la));
  }
  ref.dispatch = dispatchReference(DispatchShape{R, BS, sc.model.hidden, K, P}, sources, false);
  return ref;
}

int scenarioPlacePerRank(const Scenario& given) {
  const Scenario sc = withEplbTable(given);
  // Instances per rank depend only on the table; any valid ids (distinct per token, in
  // range) let MoeUpdateExpert's validator check it.
  RankGating probe;
  probe.topkIds.resize(static_cast<std::size_t>(sc.model.tokensPerRank) * sc.model.topk);
  for (std::size_t i = 0; i < probe.topkIds.size(); ++i)
    probe.topkIds[i] = static_cast<std::int32_t>(i % static_cast<std::size_t>(sc.model.topk));
  probe.topkWeights.assign(probe.topkIds.size(), 1.0f);
  const UpdateExpertArgs args = updateExpertArgs(sc, probe, 0);
  validateUpdateExpert(args, "eplb");
  const int P = updateExpertPlacePerRank(args);
  require(sc.eplb.placePerRank == 0 || sc.eplb.placePerRank == P, "eplb.place_per_rank",
          "must match the table's " + std::to_string(P) + " instances per rank");
  const int slots = sc.model.experts + sc.eplb.redundantExperts;
  require(sc.eplb.redundantExperts == 0 || P * sc.cluster.ranks() == slots,
          "eplb.redundant_experts",
          "the table has " + std::to_string(P * sc.cluster.ranks()) +
              " instances, but experts + redundant_experts = " + std::to_string(slots));
  return P;
}

void checkRunnable(const Scenario& sc) {
  // The workload `run` would emulate must be runnable too (the fused operator's shape rules).
  if (sc.workload.kind == WorkloadKind::AlltoallMatmulRs)
    validateA2aMatmul(shapeFromWorkload(sc.workload), sc.hardware);
  const int P = scenarioPlacePerRank(sc);
  validateDispatchTiling(sc, P);
  // Memory last: its figures assume the shape checks above have passed.
  if (sc.workload.kind == WorkloadKind::MoeLayer) checkMemory(sc, P, hostMemoryLimit());
}

namespace {
template <typename T>
void hostWrite(Buffer* b, const std::vector<T>& v) {
  if (!b->bytes.empty() && !v.empty()) std::memcpy(b->data(), v.data(), v.size() * sizeof(T));
}
template <typename T>
std::vector<T> hostRead(const Buffer* b) {
  if (b == nullptr || b->bytes.empty()) return {};
  std::vector<T> v(static_cast<std::size_t>(b->size) / sizeof(T));
  std::memcpy(v.data(), b->data(), v.size() * sizeof(T));
  return v;
}
}  // namespace

LayerRun::LayerRun(const Scenario& sc, DispatchImpl impl,
                   std::shared_ptr<const std::vector<RankGating>> gating, Fault fault)
    : sc_(withEplbTable(sc)), impl_(impl), gating_(std::move(gating)) {
  if (impl != DispatchImpl::Phased && impl != DispatchImpl::Streaming)
    throw std::logic_error("LayerRun runs one dispatch design at a time");
  if (!gating_) gating_ = std::make_shared<const std::vector<RankGating>>(generateGating(sc_));
  // The table must be valid before any kernel indexes it.
  const int P = scenarioPlacePerRank(sc_);

  emu_ = std::make_unique<Emulation>(sc_);
  ctx_ = std::make_unique<LayerContext>(*emu_, P, scenarioTable(sc_).second);
  LayerContext& c = *ctx_;
  c.fault = fault;
  c.instanceLogical = instanceToLogical(sc_, c.R * c.P);
  validateDispatchTiling(sc_, P);  // phased uses the same cores and staging

  Machine& m = emu_->machine();
  const auto table = scenarioTable(sc_).first;
  for (int r = 0; r < c.R; ++r) {
    CardTensors& t = c.cards[r];
    const RankGating& g = (*gating_)[r];
    const std::int64_t bk = static_cast<std::int64_t>(c.BS) * c.K;
    t.x = m.allocGm(r, c.BS * c.rowBytes, "x", true);
    t.topkIds = m.allocGm(r, bk * 4, "topk_ids", false);
    t.topkWeights = m.allocGm(r, bk * 4, "topk_weights", false);
    t.table = m.allocGm(r, static_cast<std::int64_t>(table.size()) * 4, "eplb_table", false);
    t.active = m.allocGm(r, c.BS, "active_mask", false);
    t.balancedIds = m.allocGm(r, bk * 4, "balanced_ids", false);
    t.mask = m.allocGm(r, bk, "keep_mask", false);
    t.tokensPerRank = m.allocGm(r, c.R * 4LL, "num_tokens_per_rank", false);
    t.tokensPerRdmaRank = m.allocGm(r, c.S * 4LL, "num_tokens_per_rdma_rank", false);
    t.tokensPerExpert = m.allocGm(r, c.R * c.P * 4LL, "num_tokens_per_expert", false);
    t.isTokenInRank =
        m.allocGm(r, static_cast<std::int64_t>(c.BS) * c.R, "is_token_in_rank", false);
    t.recvCounts = m.allocGm(r, c.R * (2LL + c.P) * 4, "recv_counts", false);
    hostWrite(t.x, g.x);
    hostWrite(t.topkIds, g.topkIds);
    hostWrite(t.topkWeights, g.topkWeights);
    hostWrite(t.table, table);
    const auto args = updateExpertArgs(sc_, g, r);
    hostWrite(t.active, args.activeMask.value_or(std::vector<std::uint8_t>(c.BS, 1)));
    std::fill(t.mask->bytes.begin(), t.mask->bytes.end(), 1);  // kept unless pruning says not
  }
  driverProgram_ = emu_->sim().spawn(driver(), "host");
}

LayerRun::~LayerRun() = default;

template <typename Launch>
Task LayerRun::stage(std::string name, Launch launch) {
  Simulator& sim = emu_->sim();
  const Machine& m = emu_->machine();
  auto linkBytes = [&](StageReport& rep, double sign) {
    for (const LinkInfo& l : m.links()) {
      const double b = sign * m.net().resource(l.resource).bytesCarried;
      if (l.kind == LinkInfo::Kind::Hccs) rep.hccsBytes += b;
      if (l.kind == LinkInfo::Kind::NicTx) rep.nicBytes += b;
    }
  };
  stage_ = name;
  StageReport rep;
  rep.name = name;
  rep.start = sim.now();
  linkBytes(rep, -1.0);
  emu_->observer().stageBegin(name, sim.now());
  Latch latch(sim);
  launch(*ctx_, latch);
  co_await latch;
  rep.end = sim.now();
  linkBytes(rep, 1.0);
  rep.linkBytes = rep.hccsBytes + rep.nicBytes;
  emu_->observer().stageEnd(sim.now());
  stages_.push_back(rep);
}

Task LayerRun::driver() {
  co_await stage("update-expert", launchUpdateExpert);
  co_await stage("layout", launchLayout);
  co_await stage("dispatch-notify", launchDispatchNotify);
  allocateDispatchOutputs();  // the host learns the receive sizes, as after DeepEP's notify
  if (impl_ == DispatchImpl::Phased)
    co_await stage("dispatch-phased", launchDispatchPhased);
  else
    co_await stage("dispatch-streaming", launchDispatchStreaming);
  commBufferBytes_ = ctx_->commBufferBytes;
  // Dispatch's rings and windows are dead now: keep memory to one stage's worth.
  emu_->discardRingData();
  for (Buffer* b : ctx_->stageScratch) emu_->machine().discard(b);
  ctx_->stageScratch.clear();
  co_await stage("experts", launchExperts);
  if (impl_ == DispatchImpl::Phased)
    co_await stage("combine-phased", launchCombinePhased);
  else
    co_await stage("combine-streaming", launchCombineStreaming);
  combineBufferBytes_ = ctx_->combineBufferBytes;
  stage_ = "done";
}

void LayerRun::allocateDispatchOutputs() {
  LayerContext& c = *ctx_;
  Machine& m = emu_->machine();
  for (int d = 0; d < c.R; ++d) {
    CardTensors& t = c.cards[d];
    const RecvPlan plan = planFromCounts(t.recvCounts->as<std::int32_t>(), c.R, c.P);
    t.recvRows = plan.rows;
    t.expandX = m.allocGm(d, plan.rows * c.rowBytes, "expand_x", true);
    t.expandScales = m.allocGm(d, plan.rows * 4, "expand_scales", false);
    t.expandIdx = m.allocGm(d, plan.rows * 12, "expand_idx", false);
    t.expertTokenNums = m.allocGm(d, c.P * 4LL, "expert_token_nums", false);
    t.offsets = m.allocGm(d, c.P * c.R * 4LL, "offsets", false);
    t.lengths = m.allocGm(d, c.P * c.R * 4LL, "lengths", false);
    t.expertOut = m.allocGm(d, plan.rows * c.rowBytes, "expert_out", true);
  }
  for (int r = 0; r < c.R; ++r) {
    CardTensors& t = c.cards[r];
    t.xOut = m.allocGm(r, c.BS * c.rowBytes, "x_out", true);
    if (sc_.combine.addRmsNorm) {
      t.normY = m.allocGm(r, c.BS * c.rowBytes, "rmsnorm_y", true);
      t.rstd = m.allocGm(r, c.BS * 4LL, "rstd", false);
    }
  }
}

bool LayerRun::step() {
  if (!emu_->sim().step()) return false;
  return !finished();
}

void LayerRun::runToEnd() {
  emu_->sim().run();
}

bool LayerRun::finished() const {
  return emu_->sim().programDone(driverProgram_);
}

std::string LayerRun::design() const {
  return toString(impl_);
}

std::vector<VerificationCheck> LayerRun::verifyAgainstReference() const {
  return verify(computeReference(sc_, gating_));
}

std::vector<DispatchOutput> LayerRun::dispatchOutputs(bool withRows) const {
  std::vector<DispatchOutput> out;
  for (const CardTensors& t : ctx_->cards) {
    DispatchOutput o;
    if (withRows) o.expandX = hostRead<bf16>(t.expandX);
    o.expandScales = hostRead<float>(t.expandScales);
    o.expandIdx = hostRead<std::int32_t>(t.expandIdx);
    o.expertTokenNums = hostRead<std::int32_t>(t.expertTokenNums);
    o.offsets = hostRead<std::int32_t>(t.offsets);
    o.lengths = hostRead<std::int32_t>(t.lengths);
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::vector<bf16>> LayerRun::expertOutputs() const {
  std::vector<std::vector<bf16>> out;
  for (const CardTensors& t : ctx_->cards) out.push_back(hostRead<bf16>(t.expertOut));
  return out;
}

std::vector<LayoutResult> LayerRun::layoutOutputs() const {
  std::vector<LayoutResult> out;
  for (const CardTensors& t : ctx_->cards) {
    LayoutResult l;
    l.numTokensPerRank = hostRead<std::int32_t>(t.tokensPerRank);
    l.numTokensPerRdmaRank = hostRead<std::int32_t>(t.tokensPerRdmaRank);
    l.numTokensPerExpert = hostRead<std::int32_t>(t.tokensPerExpert);
    l.isTokenInRank = hostRead<std::uint8_t>(t.isTokenInRank);
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::vector<std::int32_t>> LayerRun::balancedIds() const {
  std::vector<std::vector<std::int32_t>> out;
  for (const CardTensors& t : ctx_->cards) out.push_back(hostRead<std::int32_t>(t.balancedIds));
  return out;
}

std::vector<std::vector<std::uint8_t>> LayerRun::keepMasks() const {
  std::vector<std::vector<std::uint8_t>> out;
  for (const CardTensors& t : ctx_->cards) out.push_back(hostRead<std::uint8_t>(t.mask));
  return out;
}

std::int64_t LayerRun::peakRingOccupancy() const {
  std::int64_t peak = 0;
  for (const auto& r : emu_->rings()) peak = std::max(peak, r.stats().peakOccupancy);
  return peak;
}

namespace {
template <typename T>
std::string firstMismatch(const std::vector<T>& got, const std::vector<T>& want,
                          const std::string& what) {
  if (got.size() != want.size())
    return what + ": " + std::to_string(got.size()) + " elements, reference has " +
           std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
      return what + ": first difference at element " + std::to_string(i);
  return {};
}
}  // namespace

std::vector<VerificationCheck> LayerRun::verify(const ReferenceLayer& ref) const {
  std::vector<VerificationCheck> checks;
  auto add = [&](std::string name, std::string mismatch, std::string what) {
    checks.push_back(
        {std::move(name), mismatch.empty(), mismatch.empty() ? std::move(what) : mismatch});
  };
  const int R = ctx_->R;
  add("run completed", finished() ? "" : "the run did not finish (deadlock)",
      "all programs finished");
  {
    std::string mm;
    const auto ids = balancedIds();
    const auto masks = keepMasks();
    for (int r = 0; r < R && mm.empty(); ++r) {
      mm = firstMismatch(ids[r], ref.updateExpert[r].balancedIds,
                         "rank " + std::to_string(r) + " balanced_expert_ids");
      if (mm.empty() && ref.updateExpert[r].balancedActiveMask)
        mm = firstMismatch(masks[r], *ref.updateExpert[r].balancedActiveMask,
                           "rank " + std::to_string(r) + " balanced_active_mask");
    }
    add("update-expert == reference (bit-exact)", mm, std::to_string(R) + " ranks");
  }
  {
    std::string mm;
    const auto lay = layoutOutputs();
    for (int r = 0; r < R && mm.empty(); ++r) {
      const std::string p = "rank " + std::to_string(r) + " ";
      mm = firstMismatch(lay[r].numTokensPerRank, ref.layout[r].numTokensPerRank,
                         p + "num_tokens_per_rank");
      if (mm.empty())
        mm = firstMismatch(lay[r].numTokensPerRdmaRank, ref.layout[r].numTokensPerRdmaRank,
                           p + "num_tokens_per_rdma_rank");
      if (mm.empty())
        mm = firstMismatch(lay[r].numTokensPerExpert, ref.layout[r].numTokensPerExpert,
                           p + "num_tokens_per_expert");
      if (mm.empty())
        mm = firstMismatch(lay[r].isTokenInRank, ref.layout[r].isTokenInRank,
                           p + "is_token_in_rank");
    }
    add("layout == reference (bit-exact)", mm, std::to_string(R) + " ranks");
  }
  {
    std::string mm;
    const auto out = dispatchOutputs(false);  // rows are checked in place below
    std::int64_t rows = 0;
    for (int r = 0; r < R && mm.empty(); ++r) {
      const std::string p = "rank " + std::to_string(r) + " ";
      const DispatchOutput& w = ref.dispatch[r];
      mm = firstMismatch(out[r].expandScales, w.expandScales, p + "expandScales");
      if (mm.empty()) mm = firstMismatch(out[r].expandIdx, w.expandIdx, p + "expandIdx");
      if (mm.empty())
        mm = firstMismatch(out[r].expertTokenNums, w.expertTokenNums, p + "expertTokenNums");
      if (mm.empty()) mm = firstMismatch(out[r].offsets, w.offsets, p + "offsets");
      if (mm.empty()) mm = firstMismatch(out[r].lengths, w.lengths, p + "lengths");
      rows += w.rows();
    }
    // Row r of expandX must be the source row the reference's expandIdx names, and the
    // expert output row its expert's function of it. Checked in place, row by row.
    std::string rowsMm, expertMm;
    if (sc_.payload == PayloadMode::Full && mm.empty()) {
      std::vector<bf16> y(static_cast<std::size_t>(ctx_->H));
      for (int r = 0; r < R && rowsMm.empty() && expertMm.empty(); ++r) {
        const DispatchOutput& w = ref.dispatch[r];
        const auto* got = ctx_->cards[r].expandX->as<bf16>();
        const auto* gotY = ctx_->cards[r].expertOut->as<bf16>();
        for (int le = 0; le < ctx_->P; ++le) {
          const std::int64_t begin = w.offsets[le * R];
          for (std::int64_t row = begin; row < begin + w.expertTokenNums[le]; ++row) {
            // The row's function is its token's routed logical expert (gating's choice), so a
            // replica on any rank must compute the same output as the expert's other replicas.
            const RankGating& src = (*ref.gating)[w.expandIdx[row * 3]];
            const std::int64_t slot =
                static_cast<std::int64_t>(w.expandIdx[row * 3 + 1]) * ctx_->K +
                w.expandIdx[row * 3 + 2];
            const ExpertCoefficients c =
                expertCoefficients(src.topkIds[static_cast<std::size_t>(slot)]);
            const bf16* want = &src.x[static_cast<std::size_t>(w.expandIdx[row * 3 + 1]) * ctx_->H];
            const bf16* have = got + row * ctx_->H;
            if (rowsMm.empty() && std::memcmp(have, want, ctx_->rowBytes) != 0)
              rowsMm =
                  "rank " + std::to_string(r) + " expandX: row " + std::to_string(row) + " differs";
            expertRow(c, want, y.data(), ctx_->H);
            if (expertMm.empty() &&
                std::memcmp(gotY + row * ctx_->H, y.data(), ctx_->rowBytes) != 0)
              expertMm = "rank " + std::to_string(r) + " expert output: row " +
                         std::to_string(row) + " differs";
          }
        }
      }
    }
    add("dispatch == reference (bit-exact)", mm.empty() ? rowsMm : mm,
        std::to_string(rows) + " rows");
    if (sc_.payload == PayloadMode::Full)
      add("experts == reference (bit-exact)", expertMm, "y = a_e x + b_e per row");
  }
  if (sc_.payload == PayloadMode::Full) {
    // Combine: the sum's order differs from the reference's (per server first), so each
    // element must be within the reference's bound (one bf16 ulp plus fp32 reordering;
    // see combineReference); every token's row is checked, so coverage is complete.
    std::string mm;
    std::int64_t elements = 0;
    double worst = 0;
    for (int r = 0; r < R && mm.empty(); ++r) {
      const RankGating& g = (*ref.gating)[r];
      std::vector<std::uint8_t> keep = ref.updateExpert[r].balancedActiveMask.value_or(
          std::vector<std::uint8_t>(static_cast<std::size_t>(ctx_->BS) * ctx_->K, 1));
      const CombineShape shape{ctx_->BS, ctx_->H, ctx_->K, ctx_->P, sc_.combine.sharedExpert};
      const CombineSource src{&g.x, &g.topkIds, &g.topkWeights, &keep};
      const auto* got = ctx_->cards[r].xOut->as<bf16>();
      if (!sc_.combine.addRmsNorm) {
        const CombineReference want = combineReference(shape, src);
        for (std::size_t i = 0; i < want.out.size() && mm.empty(); ++i) {
          const double diff = std::fabs(double(bf16ToFloat(got[i])) - bf16ToFloat(want.out[i]));
          worst = std::max(worst, diff / want.bound[i]);
          if (!(diff <= want.bound[i]))
            mm = "rank " + std::to_string(r) + " x_out element " + std::to_string(i) + ": " +
                 std::to_string(bf16ToFloat(got[i])) + " vs reference " +
                 std::to_string(bf16ToFloat(want.out[i]));
        }
        elements += static_cast<std::int64_t>(want.out.size());
      } else {
        const CombineReference bound = combineReference(shape, src);
        const AddRmsNormResult want =
            addRmsNormReference(combineSumFp32(shape, src), g.x, ctx_->BS, ctx_->H,
                                static_cast<float>(sc_.combine.rmsEps));
        const auto* y = ctx_->cards[r].normY->as<bf16>();
        const auto* rstd = ctx_->cards[r].rstd->as<float>();
        for (int t = 0; t < ctx_->BS && mm.empty(); ++t) {
          if (std::fabs(rstd[t] - want.rstd[t]) > 0x1p-10f * want.rstd[t])
            mm = "rank " + std::to_string(r) + " rstd[" + std::to_string(t) +
                 "] differs beyond 2^-10 relative";
          for (int h = 0; h < ctx_->H && mm.empty(); ++h) {
            const std::size_t i = static_cast<std::size_t>(t) * ctx_->H + h;
            const double xb = bound.bound[i] + 0x1p-7 * std::fabs(bf16ToFloat(want.xOut[i]));
            if (std::fabs(bf16ToFloat(got[i]) - bf16ToFloat(want.xOut[i])) > xb)
              mm = "rank " + std::to_string(r) + " x_out element " + std::to_string(i) + " differs";
            const double yb =
                (xb * want.rstd[t] * rmsNormGamma(h)) + 0x1p-7 * std::fabs(bf16ToFloat(want.y[i]));
            if (std::fabs(bf16ToFloat(y[i]) - bf16ToFloat(want.y[i])) > yb)
              mm = "rank " + std::to_string(r) + " y element " + std::to_string(i) + " differs";
          }
        }
        elements += static_cast<std::int64_t>(want.y.size());
      }
    }
    char detail[160];
    std::snprintf(detail, sizeof detail, "%lld elements, worst error %.3f of the bound",
                  static_cast<long long>(elements), worst);
    add(sc_.combine.addRmsNorm ? "combine-add-rms-norm == reference (bf16 tolerance)"
                               : "combine == reference (bf16 tolerance)",
        mm, detail);
  }
  {
    std::string mm;
    const auto v = emu_->violations();
    if (!v.empty()) mm = std::to_string(v.size()) + " protocol violations, first: " + v.front();
    for (const auto& ring : emu_->rings()) {
      if (!mm.empty()) break;
      if (ring.stats().recordsRead != ring.stats().recordsWritten || !ring.records().empty() ||
          ring.head() != ring.tail())
        mm = ring.name() + ": " + std::to_string(ring.stats().recordsWritten) +
             " records written, " + std::to_string(ring.stats().recordsRead) +
             " read (exactly-once delivery broken)";
    }
    add("ring invariants and exactly-once delivery", mm,
        std::to_string(emu_->rings().size()) + " rings");
  }
  return checks;
}

std::uint64_t LayerRun::outputHash() const {
  if (released_) return outputHash_;
  Fnv1a h;
  for (const CardTensors& t : ctx_->cards)
    for (const Buffer* b : {t.balancedIds, t.mask, t.tokensPerRank, t.tokensPerRdmaRank,
                            t.tokensPerExpert, t.isTokenInRank, t.expandX, t.expandScales,
                            t.expandIdx, t.expertTokenNums, t.offsets, t.lengths, t.expertOut})
      if (b) h.bytes(b->data(), b->bytes.size());
  return h.digest();
}

std::uint64_t LayerRun::digest() const {
  Fnv1a h;
  h.value(emu_->observer().eventDigest());
  h.value(emu_->sim().now());
  h.value(outputHash());
  h.value(combineHash());
  return h.digest();
}

std::uint64_t LayerRun::combineHash() const {
  if (released_) return combineHash_;
  Fnv1a h;
  for (const CardTensors& t : ctx_->cards)
    for (const Buffer* b : {t.xOut, t.normY, t.rstd})
      if (b) h.bytes(b->data(), b->bytes.size());
  return h.digest();
}

void LayerRun::releaseTensors() {
  if (released_) return;
  outputHash_ = outputHash();
  combineHash_ = combineHash();
  released_ = true;
  emu_->machine().releaseGmStorage();
}

}  // namespace moe
