#include "core/plan/role_throughput.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/plan/role_costs.h"
#include "core/reference/gating.h"

namespace moe {

namespace {

// Probability that a token picks each expert. Gumbel-top-k samples K distinct experts in
// proportion to p, so an expert is picked at most once per token: its probability is
// min(1, lambda * p_e) with lambda chosen so the K slots add up (popular experts saturate
// at 1 and the others share what is left).
std::vector<double> pickProbabilities(const std::vector<double>& p, int K) {
  std::vector<double> q(p.size(), 0.0);
  std::vector<bool> capped(p.size(), false);
  for (;;) {
    double rest = 0;
    int nCapped = 0;
    for (std::size_t e = 0; e < p.size(); ++e) capped[e] ? ++nCapped : (rest += p[e], 0);
    const double lambda = rest > 0 ? (K - nCapped) / rest : 0;
    bool changed = false;
    for (std::size_t e = 0; e < p.size(); ++e) {
      q[e] = capped[e] ? 1.0 : lambda * p[e];
      if (!capped[e] && q[e] > 1.0) capped[e] = changed = true;
    }
    if (!changed) return q;
  }
}

}  // namespace

RoutingShares routingShares(const Scenario& sc) {
  const int R = sc.cluster.ranks(), cps = sc.cluster.cardsPerServer, S = sc.cluster.servers;
  const int K = sc.model.topk, E = sc.model.experts;
  // Trace routing has no popularity; the trace's own counts are its expected load.
  std::vector<double> p =
      sc.routing.kind == RoutingKind::Trace ? expectedExpertLoad(sc) : expertPopularity(sc);
  std::vector<double> q = pickProbabilities(p, K);
  RoutingShares out;
  out.cardSlots.assign(R, 0.0);
  out.cardHit.assign(R, 0.0);
  out.serverHit.assign(S, 0.0);
  // Where each expert lives: instance e on card e / P with the identity table; any EPLB
  // table (generated, explicit or with redundant copies) is there to even the cards' load,
  // so then every card is taken to hold an equal share of experts of average popularity.
  const bool identity = sc.eplb.table.empty() && sc.eplb.tableFrom == EplbTableSource::Explicit &&
                        sc.eplb.redundantExperts == 0;
  const int P = std::max(1, sc.placePerRank());
  std::vector<double> missCard(R, 1.0), missServer(S, 1.0);
  if (identity) {
    for (int e = 0; e < E && e / P < R; ++e) {
      out.cardSlots[e / P] += q[e];
      missCard[e / P] *= 1.0 - q[e];
      missServer[e / P / cps] *= 1.0 - q[e];
    }
  } else {
    const double qe = static_cast<double>(K) / (static_cast<double>(R) * P);
    for (int d = 0; d < R; ++d) {
      out.cardSlots[d] = qe * P;
      missCard[d] = std::pow(1.0 - std::min(1.0, qe), P);
      missServer[d / cps] *= missCard[d];
    }
  }
  for (int d = 0; d < R; ++d) out.cardHit[d] = 1.0 - missCard[d];
  for (int s = 0; s < S; ++s) out.serverHit[s] = 1.0 - missServer[s];
  return out;
}

const char* toString(ModelRole r) {
  switch (r) {
    case ModelRole::Sender:
      return "sender";
    case ModelRole::Forwarder:
      return "forwarder";
    case ModelRole::Receiver:
      return "receiver";
  }
  return "?";
}

double StagePrediction::roleNs(ModelRole r) const {
  return r == ModelRole::Sender ? senderNs : r == ModelRole::Forwarder ? forwarderNs : receiverNs;
}
ModelRole StagePrediction::bottleneck() const {
  ModelRole best = ModelRole::Sender;
  for (ModelRole r : {ModelRole::Forwarder, ModelRole::Receiver})
    if (roleNs(r) > roleNs(best)) best = r;
  return best;
}
double StagePrediction::stageNs() const {
  if (receiverAfter) return std::max(senderNs, forwarderNs) + receiverNs + fillNs;
  return roleNs(bottleneck()) + fillNs;
}

StagePrediction predictStage(const Scenario& scIn, const RoutingShares& shares, RingStage stage,
                             const RingTiling& t) {
  Scenario sc = scIn;
  (stage == RingStage::Dispatch ? sc.rings.dispatch : sc.rings.combine) = t;
  const role_model::Costs c(sc.hardware);
  return stage == RingStage::Dispatch ? role_model::predictDispatch(sc, shares, c)
                                      : role_model::predictCombine(sc, shares, c);
}

}  // namespace moe
