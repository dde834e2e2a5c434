#include "core/plan/tiling_explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "core/plan/combine_plan.h"
#include "core/plan/dispatch_tiling.h"
#include "core/plan/rdma_batch_proposal.h"
#include "core/plan/role_throughput.h"
#include "core/runtime/record_layout.h"
#include "core/scenario/scenario_json.h"

namespace moe {

namespace {
std::string num(std::int64_t v) {
  return std::to_string(v);
}
std::string kib(std::int64_t v) {
  return v % 1024 == 0 ? num(v / 1024) + " KiB" : num(v) + " B";
}
std::string us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", ns / 1000.0);
  return buf;
}
std::string share(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}
std::string tilingText(const RingTiling& t) {
  return "chunk " + kib(t.chunkBytes) + ", queue " + num(t.queueChunks) + ", cores " +
         num(t.senderCores) + "/" + num(t.forwarderCores) + "/" + num(t.receiverCores) +
         " (sender/forwarder/receiver)";
}
std::string rolesText(const StagePrediction& p) {
  return "sender " + us(p.senderNs) + " (" + p.senderLimit + "), forwarder " + us(p.forwarderNs) +
         " (" + p.forwarderLimit + "), receiver " + us(p.receiverNs) + " (" + p.receiverLimit +
         "), fill " + us(p.fillNs) +
         (p.receiverAfter ? " (receivers after the slower of senders and forwarders: tokens "
                            "complete only at their last expert's row)"
                          : " (roles overlap: the slowest sets the pace)") +
         ": stage " + us(p.stageNs()) + " on card " + num(p.card) + ", bottleneck " +
         toString(p.bottleneck());
}

// The routing the model works from: how often a token reaches the busiest card and server.
void explainRouting(const Scenario& sc, const RoutingShares& shares, std::vector<TilingLine>& out) {
  const auto hotCard = std::max_element(shares.cardSlots.begin(), shares.cardSlots.end());
  const auto hotServer = std::max_element(shares.serverHit.begin(), shares.serverHit.end());
  out.push_back(
      {"routing",
       "a token's top-" + num(sc.model.topk) + " slots reach the busiest card (" +
           num(hotCard - shares.cardSlots.begin()) + ") " + share(*hotCard) + " times (mean " +
           share(static_cast<double>(sc.model.topk) / sc.cluster.ranks()) +
           "), it with probability " + share(shares.cardHit[hotCard - shares.cardSlots.begin()]) +
           ", and the busiest server (" + num(hotServer - shares.serverHit.begin()) +
           ") with probability " + share(*hotServer) + "; from " + num(sc.model.tokensPerRank) +
           " tokens per rank, " + num(sc.cluster.servers) + " x " + num(sc.cluster.cardsPerServer) +
           " cards, H " + num(sc.model.hidden)});
}

// A stage's proposal, its roles' predicted times and the runner-up.
void explainStage(const Scenario& sc, int P, const RoutingShares& shares, RingStage stage,
                  std::vector<TilingLine>& out) {
  const std::string path = stage == RingStage::Dispatch ? "rings.dispatch" : "rings.combine";
  const RingTiling& t = sc.rings.of(stage);
  const StagePrediction p = predictStage(sc, shares, stage, t);
  const auto& grid = tilingChunkGrid();
  const bool onGrid = std::find(grid.begin(), grid.end(), t.chunkBytes) != grid.end();
  out.push_back(
      {path, tilingText(t) +
                 ": the least predicted stage time of the tuner's chunk, queue and core grid "
                 "within UB and half the ring budget" +
                 (onGrid ? std::string()
                         : "; one record per chunk, because no chunk of 16..512 KiB fits "
                           "UB beside the role's other buffers")});
  out.push_back({path + " model", rolesText(p)});
  const std::vector<TilingCandidate> ranked = rankTilings(sc, P, stage, 2);
  if (ranked.size() == 2 && ranked[0].tiling == t) {
    const StagePrediction& q = ranked[1].prediction;
    // Within the same 1% step the proposal is ranked first by its roles' sum, then the
    // deeper queue, then fewer cores (rankTilings): say so, as the times then look alike.
    const double rel = q.stageNs() / p.stageNs() - 1;
    char pct[32];
    std::snprintf(pct, sizeof pct, "%+.1f%%", rel * 100);
    out.push_back(
        {path + " runner-up",
         tilingText(ranked[1].tiling) + ": stage " + us(q.stageNs()) + " (" + pct +
             "), bottleneck " + toString(q.bottleneck()) +
             (std::abs(rel) < 0.01 ? "; within the model's 1% step, ranked after the proposal by "
                                     "the sum of role times, then queue depth, then fewer cores"
                                   : "")});
  }
}

// The RDMA batch tiling proposes with the proposed combine rings (rdma_batch_proposal.h),
// against the scenario's own: the model lines above are with the scenario's.
std::string batchText(const Scenario& sc, const RoutingShares& shares) {
  const RdmaBatchProposal b = proposeRdmaBatch(sc, shares);
  const std::int64_t ring = sc.rings.combine.chunkBytes * sc.rings.combine.queueChunks;
  const std::int64_t perPost =
      std::max<std::int64_t>(1, std::min(b.bytes, ring) / partialRecordBytes(sc));
  const std::string posts =
      ": up to " + num(perPost) + " partial" + (perPost == 1 ? "" : "s") + " per RDMA post";
  if (!b.changed()) return kib(b.bytes) + " (kept from the scenario)" + posts;
  return kib(b.bytes) + " proposed (the scenario has " + kib(sc.combine.rdmaBatchBytes) + ")" +
         posts + "; the model predicts the combine at " + us(b.ns) + " with it, against " +
         us(b.keptNs) +
         " with the scenario's (the model line above): each partial ring's last "
         "batch waits for the end of the stage, and the NIC carries them all together";
}

// The combine knobs: the batch tiling proposes, those it keeps from the scenario, and the
// lanes and channels the rings imply.
void explainCombineKnobs(const Scenario& sc, const RoutingShares& shares,
                         std::vector<TilingLine>& out) {
  int lanes = 1, channels = 1;
  combineLanesAndChannels(sc, lanes, channels);
  out.push_back({"combine lanes", num(channels) + " token channels per rank, " + num(lanes) +
                                      " forwarder lanes per card (from the combine's core split)"});
  out.push_back({"dispatch channels",
                 num(dispatchRdmaChannels(sc)) + " RDMA channels per (card, other server)"});
  out.push_back({"combine.rdma_batch_bytes", batchText(sc, shares)});
  out.push_back({"combine.partial_dtype",
                 toString(sc.combine.partialDtype) +
                     " (kept from the scenario): bf16 halves the RDMA bytes and widens the "
                     "verification bound by 2^-8 of the terms"});
  out.push_back(
      {"combine.ub_window_rows",
       num(combineUbWindowRows(sc)) + " fp32 rows of " + num(partialAccumBytes(sc)) +
           " B in the forwarder's UB" +
           (sc.combine.ubWindowRows == 0 ? " (0 = what UB leaves beside the read batch)" : "")});
}

// Constraints, each with its margin.
void explainConstraints(const Scenario& sc, int P, std::vector<TilingLine>& out) {
  const HardwareProfile& hw = sc.hardware;
  const RecordLayout rec = recordLayout(sc);
  const std::int64_t pb = partialRecordBytes(sc);
  for (RingStage stage : {RingStage::Dispatch, RingStage::Combine}) {
    const RoleUbNeeds need = streamingUbNeeds(sc, P, stage);
    out.push_back(
        {"constraint", std::string(stage == RingStage::Dispatch ? "dispatch" : "combine") +
                           " UB per core (" + num(hw.ubBytes) + " B): sender needs " +
                           num(need.sender) + " B, forwarder " + num(need.forwarder) +
                           " B, receiver " + num(need.receiver) + " B"});
  }
  out.push_back({"constraint", "a chunk holds at least one record: dispatch " +
                                   kib(sc.rings.dispatch.chunkBytes) +
                                   " >= " + num(rec.recordBytes) + " B, combine " +
                                   kib(sc.rings.combine.chunkBytes) +
                                   " >= " + num(std::max(rec.recordBytes, pb)) + " B"});
  out.push_back({"constraint", "rings take " + num(streamingRingBytesPerCard(sc) >> 20) +
                                   " MiB per card of a " + num(ringHbmBudget(sc) >> 20) +
                                   " MiB budget (1/16 of HBM, half per stage)"});
}

}  // namespace

std::vector<TilingLine> explainTiling(const Scenario& sc, int P) {
  std::vector<TilingLine> out;
  const RoutingShares shares = routingShares(sc);
  explainRouting(sc, shares, out);
  for (RingStage stage : {RingStage::Dispatch, RingStage::Combine})
    explainStage(sc, P, shares, stage, out);
  explainCombineKnobs(sc, shares, out);
  explainConstraints(sc, P, out);
  out.push_back(
      {"note",
       "the times are a closed-form model (core/plan/role_throughput.h), not an engine run; "
       "`moe-sim tune` runs candidates on the engine and also searches batch bytes, partial "
       "dtype, local sums and the UB window"});
  return out;
}

}  // namespace moe
