#include "core/run/layer_verification.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/reference/combine_reference.h"
#include "core/reference/dispatch_quant.h"
#include "core/run/design_registry.h"
#include "core/scenario/scenario_enums.h"
#include "core/util/parallel_map.h"

namespace moe {

namespace {
// Threads for the checks that split by rank: two at most (the core beside the one the run
// itself uses), fewer on a one-core machine. The checks only read the run and the
// reference, so the split changes no result.
unsigned verificationThreads() {
  return resolveThreadCount(0, 2);
}

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

namespace {
// One check: passed with `what` compared, or failed with the first mismatch.
void addCheck(std::vector<VerificationCheck>& checks, std::string name, std::string mismatch,
              std::string what) {
  checks.push_back(
      {std::move(name), mismatch.empty(), mismatch.empty() ? std::move(what) : mismatch});
}
}  // namespace

// MoeUpdateExpert: balanced ids and keep-mask, bit-exact.
std::vector<VerificationCheck> verifyUpdateExpert(const LayerRun& run, const ReferenceLayer& ref) {
  const LayerContext& ctx = run.context();
  const int R = ctx.ranks;
  std::vector<VerificationCheck> checks;
  std::string mm;
  const auto ids = run.balancedIds();
  const auto masks = run.keepMasks();
  for (int r = 0; r < R && mm.empty(); ++r) {
    mm = firstMismatch(ids[r], ref.updateExpert[r].balancedIds,
                       "rank " + std::to_string(r) + " balanced_expert_ids");
    if (mm.empty() && ref.updateExpert[r].balancedActiveMask)
      mm = firstMismatch(masks[r], *ref.updateExpert[r].balancedActiveMask,
                         "rank " + std::to_string(r) + " balanced_active_mask");
  }
  addCheck(checks, "update-expert == reference (bit-exact)", mm, std::to_string(R) + " ranks");
  return checks;
}

// Layout: the four count tables, bit-exact.
std::vector<VerificationCheck> verifyLayout(const LayerRun& run, const ReferenceLayer& ref) {
  const LayerContext& ctx = run.context();
  const int R = ctx.ranks;
  std::vector<VerificationCheck> checks;
  std::string mm;
  const auto lay = run.layoutOutputs();
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
      mm = firstMismatch(lay[r].isTokenInRank, ref.layout[r].isTokenInRank, p + "is_token_in_rank");
  }
  addCheck(checks, "layout == reference (bit-exact)", mm, std::to_string(R) + " ranks");
  return checks;
}

namespace {
// Calls f(card, row, source x row, expert coefficients) for every received row of the
// cards [first, last) (all by default), in order, until f returns false.
template <typename F>
void forEachReceivedRow(const LayerContext& ctx, const ReferenceLayer& ref, F f, int first = 0,
                        int last = -1) {
  for (int r = first; r < (last < 0 ? ctx.ranks : last); ++r) {
    const DispatchOutput& w = ref.dispatch[r];
    for (int le = 0; le < ctx.placePerRank; ++le) {
      const std::int64_t begin = w.offsets[le * ctx.ranks];
      for (std::int64_t row = begin; row < begin + w.expertTokenNums[le]; ++row) {
        // The row's function is its token's routed logical expert (gating's choice), so a
        // replica on any rank must compute the same output as the expert's other replicas.
        const RankGating& src = (*ref.gating)[w.expandIdx[row * 3]];
        const std::int64_t slot = static_cast<std::int64_t>(w.expandIdx[row * 3 + 1]) * ctx.topK +
                                  w.expandIdx[row * 3 + 2];
        const ExpertCoefficients c =
            expertCoefficients(src.topkIds[static_cast<std::size_t>(slot)]);
        const bf16* x = &src.x[static_cast<std::size_t>(w.expandIdx[row * 3 + 1]) * ctx.hidden];
        if (!f(r, row, x, c)) return;
      }
    }
  }
}
}  // namespace

// Dispatch metadata and rows, bit-exact (rows only with payload full, checked in place so
// the reference never materializes them).
std::vector<VerificationCheck> verifyDispatch(const LayerRun& run, const ReferenceLayer& ref) {
  const LayerContext& ctx = run.context();
  const Scenario& sc = run.scenario();
  const int R = ctx.ranks;
  std::vector<VerificationCheck> checks;
  std::string mm;
  const auto out = run.dispatchOutputs(false);  // rows are checked in place below
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
  // Row r of expandX must be the source row the reference's expandIdx names.
  std::string rowsMm;
  double quantWorst = 0;  // largest |expandX - x| as a share of the quantization bound
  const DispatchDtype dtype = sc.model.dispatchDtype;
  if (sc.payload == PayloadMode::Full && mm.empty()) {
    std::vector<bf16> trip(static_cast<std::size_t>(ctx.hidden));
    std::vector<double> bounds(static_cast<std::size_t>(ctx.hidden));
    forEachReceivedRow(
        ctx, ref, [&](int r, std::int64_t row, const bf16* x, const ExpertCoefficients&) {
          const bf16* want = x;
          const bf16* have = ctx.cards[r].dispatch.expandX->as<bf16>() + row * ctx.hidden;
          if (ctx.quantizedDispatch) {
            // The receiver holds x after the quantization round trip: bit-exact to the
            // reference quantize/dequantize, and within the derived bound of x itself.
            quantRoundTrip(dtype, x, ctx.hidden, trip.data());
            quantRoundTripBounds(dtype, x, ctx.hidden, bounds.data());
            want = trip.data();
            for (int h = 0; h < ctx.hidden && rowsMm.empty(); ++h) {
              const float xv = bf16ToFloat(x[h]);
              const double bound = bounds[static_cast<std::size_t>(h)];
              const double err = std::fabs(double(bf16ToFloat(have[h])) - xv);
              quantWorst = std::max(quantWorst, err / bound);
              if (!(err <= bound))
                rowsMm = "rank " + std::to_string(r) + " expandX: row " + std::to_string(row) +
                         " element " + std::to_string(h) + " off x by more than the " +
                         toString(dtype) + " bound";
            }
          }
          if (rowsMm.empty() && std::memcmp(have, want, ctx.rowBytes) != 0)
            rowsMm =
                "rank " + std::to_string(r) + " expandX: row " + std::to_string(row) + " differs";
          return rowsMm.empty();
        });
  }
  if (ctx.quantizedDispatch && sc.payload == PayloadMode::Full) {
    const std::string q = toString(dtype);
    const std::string format = quantFormatName(dtype);
    char detail[200];
    std::snprintf(detail, sizeof detail,
                  "%lld rows; %s round trip bit-exact, worst |expandX - x| %.3f of the %s bound",
                  static_cast<long long>(rows), q.c_str(), quantWorst, format.c_str());
    addCheck(checks,
             "dispatch == reference (" + q + ": dequantized, within the " + format + " bound)",
             mm.empty() ? rowsMm : mm, detail);
  } else {
    addCheck(checks, "dispatch == reference (bit-exact)", mm.empty() ? rowsMm : mm,
             std::to_string(rows) + " rows");
  }
  return checks;
}

// The expert output rows, bit-exact: each its expert's function of the row dispatch was
// to deliver (the reference's, after the round trip with a quantized dispatch).
std::vector<VerificationCheck> verifyExperts(const LayerRun& run, const ReferenceLayer& ref) {
  const LayerContext& ctx = run.context();
  std::vector<VerificationCheck> checks;
  if (run.scenario().payload != PayloadMode::Full) return checks;
  std::string mm;
  for (int r = 0; r < ctx.ranks && mm.empty(); ++r)  // the rows below index by the reference's
    if (ctx.cards[r].dispatch.recvRows != ref.dispatch[r].rows())
      mm = "rank " + std::to_string(r) +
           " expert output: " + std::to_string(ctx.cards[r].dispatch.recvRows) +
           " rows, the reference has " + std::to_string(ref.dispatch[r].rows());
  // Card by card on the spare cores (each reads only its own rows); the first card's
  // mismatch in card order is the one a single thread would have found first.
  auto checkCard = [&](std::size_t card) {
    std::string cardMm;
    std::vector<bf16> y(static_cast<std::size_t>(ctx.hidden)),
        trip(static_cast<std::size_t>(ctx.hidden));
    forEachReceivedRow(
        ctx, ref,
        [&](int r, std::int64_t row, const bf16* x, const ExpertCoefficients& c) {
          const bf16* want = x;
          if (ctx.quantizedDispatch) {
            quantRoundTrip(run.scenario().model.dispatchDtype, x, ctx.hidden, trip.data());
            want = trip.data();
          }
          expertRow(c, want, y.data(), ctx.hidden);
          if (std::memcmp(ctx.cards[r].experts.expertOut->as<bf16>() + row * ctx.hidden, y.data(),
                          ctx.rowBytes) != 0)
            cardMm = "rank " + std::to_string(r) + " expert output: row " + std::to_string(row) +
                     " differs";
          return cardMm.empty();
        },
        static_cast<int>(card), static_cast<int>(card) + 1);
    return cardMm;
  };
  if (mm.empty())
    for (const std::optional<std::string>& cardMm : parallelMap<std::string>(
             static_cast<std::size_t>(ctx.ranks), checkCard, {verificationThreads(), {}, nullptr}))
      if (!cardMm->empty()) {
        mm = *cardMm;
        break;
      }
  addCheck(checks, "experts == reference (bit-exact)", mm, "y = a_e x + b_e per row");
  return checks;
}

// Whether this run's combine partials cross the wire in bf16: the scenario asks for it and
// the design reads the knob.
static bool bf16Partials(const LayerRun& run) {
  return designEntry(run.designId()).reads("combine.partial_dtype") &&
         run.scenario().combine.partialDtype == PartialDtype::Bf16;
}

// Whether this run's combine senders sum a token's local experts into one bf16 row.
static bool summedExpertRows(const LayerRun& run) {
  return designEntry(run.designId()).reads("combine.sum_local_experts") &&
         run.scenario().combine.sumLocalExperts;
}

// Rank r's plain combine output, token by token (a whole rank's reference would be
// megabytes allocated, faulted in and freed per rank and design): each element within its
// bound. Returns the elements checked; the first mismatch goes to `mm`, the largest
// error / bound ratio to `worst`.
static std::int64_t checkCombineRank(const LayerContext& ctx, const CombineShape& shape,
                                     const CombineSource& src, int r, std::string& mm,
                                     double& worst) {
  std::vector<float> rowSum(static_cast<std::size_t>(ctx.hidden)), rowBound(rowSum.size());
  std::vector<bf16> rowWant(rowSum.size()), rowScratch(rowSum.size());
  const auto* got = ctx.cards[r].combine.xOut->as<bf16>();
  for (int t = 0; t < ctx.tokensPerRank && mm.empty(); ++t) {
    combineReferenceRow(shape, src, t, rowSum.data(), rowWant.data(), rowBound.data(),
                        rowScratch.data());
    const bf16* gotRow = got + static_cast<std::size_t>(t) * ctx.hidden;
    for (int h = 0; h < ctx.hidden && mm.empty(); ++h) {
      const double diff = std::fabs(double(bf16ToFloat(gotRow[h])) - bf16ToFloat(rowWant[h]));
      worst = std::max(worst, diff / rowBound[h]);
      if (!(diff <= rowBound[h]))
        mm = "rank " + std::to_string(r) + " x_out element " +
             std::to_string(static_cast<std::int64_t>(t) * ctx.hidden + h) + ": " +
             std::to_string(bf16ToFloat(gotRow[h])) + " vs reference " +
             std::to_string(bf16ToFloat(rowWant[h]));
    }
  }
  return static_cast<std::int64_t>(ctx.tokensPerRank) * ctx.hidden;
}

// Rank r's CombineAddRmsNorm outputs (x_out, y, rstd), each within its derived bound.
// Returns the elements checked; the first mismatch goes to `mm`.
static std::int64_t checkAddRmsNormRank(const LayerContext& ctx, const Scenario& sc,
                                        const CombineShape& shape, const CombineSource& src,
                                        const RankGating& g, int r, std::string& mm) {
  const auto* got = ctx.cards[r].combine.xOut->as<bf16>();
  const CombineReference bound = combineReference(shape, src);
  const AddRmsNormResult want = addRmsNormReference(bound.sum, g.x, ctx.tokensPerRank, ctx.hidden,
                                                    static_cast<float>(sc.combine.rmsEps));
  const auto* y = ctx.cards[r].combine.normY->as<bf16>();
  const auto* rstd = ctx.cards[r].combine.rstd->as<float>();
  for (int t = 0; t < ctx.tokensPerRank && mm.empty(); ++t) {
    // rstd = 1/sqrt(mean(x^2) + eps): an error d_h on x_out moves mean(x^2) by at most
    // mean(2|x_h| d_h + d_h^2), so rstd by half that, relative. Only bf16 partials make
    // d_h large enough to matter; fp32 runs keep the plain 2^-10.
    double rel = 0x1p-10;
    if (shape.partialRounding > 0) {
      double moved = 0, sq = 0;
      for (int h = 0; h < ctx.hidden; ++h) {
        const std::size_t i = static_cast<std::size_t>(t) * ctx.hidden + h;
        const double x = std::fabs(bf16ToFloat(want.xOut[i])), d = bound.bound[i];
        moved += 2 * x * d + d * d;
        sq += x * x;
      }
      rel += 0.5 * moved / (sq + ctx.hidden * sc.combine.rmsEps);
    }
    if (std::fabs(rstd[t] - want.rstd[t]) > rel * want.rstd[t])
      mm = "rank " + std::to_string(r) + " rstd[" + std::to_string(t) +
           "] differs beyond the derived relative bound " + std::to_string(rel);
    for (int h = 0; h < ctx.hidden && mm.empty(); ++h) {
      const std::size_t i = static_cast<std::size_t>(t) * ctx.hidden + h;
      const double xb = bound.bound[i] + 0x1p-7 * std::fabs(bf16ToFloat(want.xOut[i]));
      if (std::fabs(bf16ToFloat(got[i]) - bf16ToFloat(want.xOut[i])) > xb)
        mm = "rank " + std::to_string(r) + " x_out element " + std::to_string(i) + " differs";
      const double yb =
          (xb * want.rstd[t] * rmsNormGamma(h)) + 0x1p-7 * std::fabs(bf16ToFloat(want.y[i]));
      if (std::fabs(bf16ToFloat(y[i]) - bf16ToFloat(want.y[i])) > yb)
        mm = "rank " + std::to_string(r) + " y element " + std::to_string(i) + " differs";
    }
  }
  return static_cast<std::int64_t>(want.y.size());
}

// Combine (and CombineAddRmsNorm): each element within the reference's bound (one bf16 ulp
// plus fp32 reordering; see combineReference), every token's row checked.
std::vector<VerificationCheck> verifyCombine(const LayerRun& run, const ReferenceLayer& ref) {
  const LayerContext& ctx = run.context();
  const Scenario& sc = run.scenario();
  const int R = ctx.ranks;
  std::vector<VerificationCheck> checks;
  if (sc.payload != PayloadMode::Full) return checks;
  // Combine: the sum's order differs from the reference's (per server first), so each
  // element must be within the reference's bound (one bf16 ulp plus fp32 reordering;
  // see combineReference); every token's row is checked, so coverage is complete.
  // Each rank's check is independent of the others' (it reads only that rank's output and
  // inputs), so ranks are checked on the spare cores and merged in rank order: the first
  // mismatching rank's message, the counts and the worst ratio up to it, as one thread
  // checking rank after rank would find them.
  struct RankCheck {
    std::string mm;
    std::int64_t elements = 0;
    double worst = 0;
  };
  const std::vector<std::optional<RankCheck>> perRank = parallelMap<RankCheck>(
      static_cast<std::size_t>(R),
      [&](std::size_t rank) {
        const int r = static_cast<int>(rank);
        RankCheck out;
        const RankGating& g = (*ref.gating)[rank];
        std::vector<std::uint8_t> keep = ref.updateExpert[rank].balancedActiveMask.value_or(
            std::vector<std::uint8_t>(static_cast<std::size_t>(ctx.tokensPerRank) * ctx.topK, 1));
        CombineShape shape{ctx.tokensPerRank, ctx.hidden, ctx.topK, ctx.placePerRank,
                           sc.combine.sharedExpert};
        // Streaming with bf16 partials rounds each server's partial once more (2^-8
        // relative), and summing senders round each card's partial once (another 2^-8):
        // each rounding moves a partial p by at most 2^-8 |p| <= 2^-8 times the sum of its
        // terms' magnitudes.
        if (bf16Partials(run)) shape.partialRounding += 0x1p-8f;
        if (summedExpertRows(run)) shape.partialRounding += 0x1p-8f;
        // With a quantized dispatch the experts saw x after the round trip.
        std::vector<bf16> routed;
        if (ctx.quantizedDispatch) {
          routed.resize(g.x.size());
          for (int t = 0; t < ctx.tokensPerRank; ++t)
            quantRoundTrip(sc.model.dispatchDtype, &g.x[static_cast<std::size_t>(t) * ctx.hidden],
                           ctx.hidden, &routed[static_cast<std::size_t>(t) * ctx.hidden]);
        }
        const CombineSource src{&g.x, &g.topkIds, &g.topkWeights, &keep,
                                ctx.quantizedDispatch ? &routed : nullptr};
        out.elements = sc.combine.addRmsNorm
                           ? checkAddRmsNormRank(ctx, sc, shape, src, g, r, out.mm)
                           : checkCombineRank(ctx, shape, src, r, out.mm, out.worst);
        return out;
      },
      {verificationThreads(), {}, nullptr});
  std::string mm;
  std::int64_t elements = 0;
  double worst = 0;
  for (const std::optional<RankCheck>& c : perRank) {
    elements += c->elements;
    worst = std::max(worst, c->worst);
    if (!c->mm.empty()) {
      mm = c->mm;
      break;
    }
  }
  char detail[160];
  std::snprintf(detail, sizeof detail, "%lld elements, worst error %.3f of the bound",
                static_cast<long long>(elements), worst);
  addCheck(
      checks,
      std::string(sc.combine.addRmsNorm ? "combine-add-rms-norm == reference"
                                        : "combine == reference") +
          " (bf16 tolerance" +
          (bf16Partials(run) ? std::string(", bf16 partials: +2^-8 of the terms") : "") +
          (summedExpertRows(run) ? std::string(", summed expert rows: +2^-8 of the terms") : "") +
          ")",
      mm, detail);
  return checks;
}

// The protocol: no ring or workspace violation, and every ring record read exactly once.
std::vector<VerificationCheck> verifyProtocol(const LayerRun& run, const ReferenceLayer& /*ref*/) {
  std::vector<VerificationCheck> checks;
  std::string mm;
  const auto v = run.emulation().violations();
  if (!v.empty()) mm = std::to_string(v.size()) + " protocol violations, first: " + v.front();
  // Rings retired after their stage were checked then (Emulation::retireRings), before
  // the rest, in the order they were made.
  if (mm.empty()) mm = run.emulation().retiredDeliveryError();
  for (const auto& ring : run.emulation().rings()) {
    if (!mm.empty()) break;
    mm = ring.deliveryError();
  }
  addCheck(checks, "ring invariants and exactly-once delivery", mm,
           std::to_string(run.emulation().ringCount()) + " rings");
  return checks;
}

std::vector<VerificationCheck> LayerRun::verify(const ReferenceLayer& ref) const {
  std::vector<VerificationCheck> checks;
  addCheck(checks, "run completed", finished() ? "" : "the run did not finish (deadlock)",
           "all programs finished");
  // A run that frees tensors when dead checked the stages through dispatch when dispatch
  // ended, and the experts when they ended (against the reference it was given), before
  // their rows were overwritten or freed.
  if (dispatchSettled_ && earlyRef_ != &ref)
    throw std::logic_error("verify: this run freed its rows after checking them against " +
                           std::string(earlyRef_ ? "another reference" : "no reference"));
  if (dispatchSettled_)
    checks.insert(checks.end(), earlyChecks_.begin(), earlyChecks_.end());
  else
    for (auto stage : {verifyUpdateExpert, verifyLayout, verifyDispatch}) {
      auto more = stage(*this, ref);
      checks.insert(checks.end(), more.begin(), more.end());
    }
  if (!settled_) {
    auto more = verifyExperts(*this, ref);
    checks.insert(checks.end(), more.begin(), more.end());
  }
  for (auto stage : {verifyCombine, verifyProtocol}) {
    auto more = stage(*this, ref);
    checks.insert(checks.end(), more.begin(), more.end());
  }
  return checks;
}

void LayerRun::freeTensorsWhenDead(const ReferenceLayer* ref) {
  freeWhenDead_ = true;
  earlyRef_ = ref;
}

// The checks and the hash at a settle point only read the outputs, so the checks run on
// another thread while this one hashes (both are over before the rows change).
void LayerRun::settleDispatch() {
  std::future<std::vector<VerificationCheck>> checks;
  if (earlyRef_)
    checks = std::async(std::launch::async, [this] {
      std::vector<VerificationCheck> all;
      for (auto stage : {verifyUpdateExpert, verifyLayout, verifyDispatch}) {
        auto more = stage(*this, *earlyRef_);
        all.insert(all.end(), more.begin(), more.end());
      }
      return all;
    });
  dispatchHash_ = dispatchOutputsHash();
  if (checks.valid()) {
    auto more = checks.get();
    earlyChecks_.insert(earlyChecks_.end(), more.begin(), more.end());
  }
  dispatchSettled_ = true;
}

void LayerRun::settleThroughExperts() {
  std::future<std::vector<VerificationCheck>> checks;
  if (earlyRef_)
    checks = std::async(std::launch::async, [this] { return verifyExperts(*this, *earlyRef_); });
  outputHash_ = outputHash();
  if (checks.valid()) {
    auto more = checks.get();
    earlyChecks_.insert(earlyChecks_.end(), more.begin(), more.end());
  }
  settled_ = true;
  // expand_x is dead, but expert_out holds its bytes now (allocGmSharing): only the view
  // goes; the combine frees the bytes through expert_out.
  for (CardTensors& t : ctx_->cards) t.dispatch.expandX->bytes = ByteStore();
  ctx_->freeDeadTensors = true;
}

std::vector<VerificationCheck> LayerRun::verifyAgainstReference() const {
  // A host that shared its reference (freeTensorsWhenDead) is not made to wait for a second.
  if (earlyRef_) return verify(*earlyRef_);
  return verify(computeReference(sc_, gating_));
}

}  // namespace moe
