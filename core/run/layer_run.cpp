#include "core/run/layer_run.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/kernels/dispatch_common.h"
#include "core/run/design_registry.h"
#include "core/run/expert_balance.h"
#include "core/run/layer_args.h"
#include "core/scenario/scenario_json.h"

namespace moe {

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

LayerRun::LayerRun(const ResolvedScenario& rs, Design design, Fault fault)
    : sc_(rs.scenario()), design_(design), gating_(rs.gating()) {
  if (workloadOf(design) != WorkloadKind::MoeLayer)
    throw std::logic_error("LayerRun runs one design of the MoE layer");
  if (!gating_) throw std::logic_error("LayerRun needs a scenario resolved for the MoE layer");
  emu_ = std::make_unique<Emulation>(sc_);
  ctx_ = std::make_unique<LayerContext>(*emu_, rs.placePerRank(), scenarioTable(sc_).second);
  ctx_->fault = fault;
  if (const auto channels = designEntry(design).dispatchChannels) ctx_->channels = channels(sc_);
  ctx_->instanceLogical = instanceToLogical(sc_, ctx_->ranks * ctx_->placePerRank);
  stages_ = std::make_unique<StageRunner>(*emu_);
  allocateInputs();
  driverProgram_ = emu_->sim().spawn(driver(), "host");
}

LayerRun::~LayerRun() = default;

// The layer's inputs on every card: tokens, routing and the eplb table, plus the outputs of
// the stages before dispatch (their sizes are known up front).
void LayerRun::allocateInputs() {
  LayerContext& c = *ctx_;
  Machine& m = emu_->machine();
  const auto table = scenarioTable(sc_).first;
  for (int r = 0; r < c.ranks; ++r) {
    CardTensors& t = c.cards[r];
    const RankGating& g = (*gating_)[r];
    const std::int64_t bk = static_cast<std::int64_t>(c.tokensPerRank) * c.topK;
    // The tokens are read, never written: every design's run reads the gating's bytes
    // (shared by the resolved scenario) instead of holding a copy of its own.
    const std::int64_t xBytes = c.tokensPerRank * c.rowBytes;
    const bool shareX = static_cast<std::int64_t>(g.x.size() * sizeof(bf16)) == xBytes;
    t.input.x =
        shareX ? m.allocGmInput(r, g.x.data(), xBytes, "x") : m.allocGm(r, xBytes, "x", true);
    t.input.topkIds = m.allocGm(r, bk * 4, "topk_ids", false);
    t.input.topkWeights = m.allocGm(r, bk * 4, "topk_weights", false);
    t.input.table = m.allocGm(r, static_cast<std::int64_t>(table.size()) * 4, "eplb_table", false);
    t.input.active = m.allocGm(r, c.tokensPerRank, "active_mask", false);
    t.update.balancedIds = m.allocGm(r, bk * 4, "balanced_ids", false);
    t.update.mask = m.allocGm(r, bk, "keep_mask", false);
    t.layout.tokensPerRank = m.allocGm(r, c.ranks * 4LL, "num_tokens_per_rank", false);
    t.layout.tokensPerRdmaRank = m.allocGm(r, c.servers * 4LL, "num_tokens_per_rdma_rank", false);
    t.layout.tokensPerExpert =
        m.allocGm(r, c.ranks * c.placePerRank * 4LL, "num_tokens_per_expert", false);
    t.layout.isTokenInRank = m.allocGm(r, static_cast<std::int64_t>(c.tokensPerRank) * c.ranks,
                                       "is_token_in_rank", false);
    t.dispatch.recvCounts =
        m.allocGm(r, c.ranks * static_cast<std::int64_t>(c.countCols()) * 4, "recv_counts", false);
    if (!shareX) hostWrite(t.input.x, g.x);
    hostWrite(t.input.topkIds, g.topkIds);
    hostWrite(t.input.topkWeights, g.topkWeights);
    hostWrite(t.input.table, table);
    const auto args = updateExpertArgs(sc_, g, r);
    hostWrite(t.input.active,
              args.activeMask.value_or(std::vector<std::uint8_t>(c.tokensPerRank, 1)));
    // Kept unless pruning says not.
    std::fill(t.update.mask->bytes.begin(), t.update.mask->bytes.end(), 1);
  }
}

void LayerRun::allocateDispatchOutputs() {
  LayerContext& c = *ctx_;
  Machine& m = emu_->machine();
  for (int d = 0; d < c.ranks; ++d) {
    CardTensors& t = c.cards[d];
    const RecvPlan plan = planFromCounts(c, t.dispatch.recvCounts->as<std::int32_t>());
    t.dispatch.recvRows = plan.rows;
    t.dispatch.expandX = m.allocGm(d, plan.rows * c.rowBytes, "expand_x", true);
    t.dispatch.expandScales = m.allocGm(d, plan.rows * 4, "expand_scales", false);
    t.dispatch.expandIdx = m.allocGm(d, plan.rows * 12, "expand_idx", false);
    t.dispatch.expertTokenNums = m.allocGm(d, c.placePerRank * 4LL, "expert_token_nums", false);
    t.dispatch.offsets = m.allocGm(d, c.placePerRank * c.ranks * 4LL, "offsets", false);
    t.dispatch.lengths = m.allocGm(d, c.placePerRank * c.ranks * 4LL, "lengths", false);
    // A run that frees tensors when dead computes the expert rows in place: expert_out
    // takes its own HBM but shares expand_x's host bytes (see experts_kernel.cpp).
    t.experts.expertOut = freeWhenDead_ ? m.allocGmSharing(t.dispatch.expandX, "expert_out")
                                        : m.allocGm(d, plan.rows * c.rowBytes, "expert_out", true);
  }
  for (int r = 0; r < c.ranks; ++r) {
    CardTensors& t = c.cards[r];
    // Small pages: with huge pages x_out would share 2 MiB pages with expand_x's tail and be
    // resident (zero) from dispatch on, though it is written only by the combine.
    t.combine.xOut = m.allocGm(r, c.tokensPerRank * c.rowBytes, "x_out", true, /*sparse=*/true);
    if (sc_.combine.addRmsNorm) {
      t.combine.normY = m.allocGm(r, c.tokensPerRank * c.rowBytes, "rmsnorm_y", true);
      t.combine.rstd = m.allocGm(r, c.tokensPerRank * 4LL, "rstd", false);
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
  // Done when the driver has finished and every operation it left in flight has landed
  // (a last RDMA word write can land after the last core finished): stepping event by
  // event then ends at the same time as runToEnd.
  return emu_->sim().programDone(driverProgram_) && emu_->sim().pendingEvents() == 0;
}

std::string LayerRun::design() const {
  return std::string(designName(design_));
}

std::vector<DispatchOutput> LayerRun::dispatchOutputs(bool withRows) const {
  std::vector<DispatchOutput> out;
  for (const CardTensors& t : ctx_->cards) {
    DispatchOutput o;
    if (withRows) o.expandX = hostRead<bf16>(t.dispatch.expandX);
    o.expandScales = hostRead<float>(t.dispatch.expandScales);
    o.expandIdx = hostRead<std::int32_t>(t.dispatch.expandIdx);
    o.expertTokenNums = hostRead<std::int32_t>(t.dispatch.expertTokenNums);
    o.offsets = hostRead<std::int32_t>(t.dispatch.offsets);
    o.lengths = hostRead<std::int32_t>(t.dispatch.lengths);
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::vector<bf16>> LayerRun::expertOutputs() const {
  std::vector<std::vector<bf16>> out;
  for (const CardTensors& t : ctx_->cards) out.push_back(hostRead<bf16>(t.experts.expertOut));
  return out;
}

std::vector<LayoutResult> LayerRun::layoutOutputs() const {
  std::vector<LayoutResult> out;
  for (const CardTensors& t : ctx_->cards) {
    LayoutResult l;
    l.numTokensPerRank = hostRead<std::int32_t>(t.layout.tokensPerRank);
    l.numTokensPerRdmaRank = hostRead<std::int32_t>(t.layout.tokensPerRdmaRank);
    l.numTokensPerExpert = hostRead<std::int32_t>(t.layout.tokensPerExpert);
    l.isTokenInRank = hostRead<std::uint8_t>(t.layout.isTokenInRank);
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::vector<std::int32_t>> LayerRun::balancedIds() const {
  std::vector<std::vector<std::int32_t>> out;
  for (const CardTensors& t : ctx_->cards)
    out.push_back(hostRead<std::int32_t>(t.update.balancedIds));
  return out;
}

std::vector<std::vector<std::uint8_t>> LayerRun::keepMasks() const {
  std::vector<std::vector<std::uint8_t>> out;
  for (const CardTensors& t : ctx_->cards) out.push_back(hostRead<std::uint8_t>(t.update.mask));
  return out;
}

std::int64_t LayerRun::peakRingOccupancy() const {
  std::int64_t peak = emu_->retiredPeakOccupancy();
  for (const auto& r : emu_->rings()) peak = std::max(peak, r.stats().peakOccupancy);
  return peak;
}

RunBuffers LayerRun::buffers() const {
  RunBuffers b;
  b.dispatchBytes = commBufferBytes_;
  b.combineBytes = combineBufferBytes_;
  b.peakRingOccupancy = peakRingOccupancy();
  return b;
}

}  // namespace moe
