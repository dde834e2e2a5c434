#pragma once
// A closed-form model of the streaming dispatch's and combine's roles (DESIGN.md §3.5b): from
// the scenario's shape (tokens per rank, H, top-k, servers, cards per server), the expected
// routing of its gating config and the hardware profile, the time each role (sender,
// forwarder, receiver) needs on the busiest card for a candidate tiling. The stage takes
// as long as its slowest role plus the time the first chunk needs to reach the last role
// (fill). No engine run: the tiling proposal ranks thousands of candidates with it, and
// `moe-sim tiling` prints it so the proposal can be checked by hand.

#include <string>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe {

// What the routing sends where, per token of any rank (sources are alike: every rank draws
// its tokens from the same popularity). Expected values, closed form from the gating config.
struct RoutingShares {
  std::vector<double> cardSlots;  // [card] expected top-k slots of a token on the card
  std::vector<double> cardHit;    // [card] probability a token goes to the card at all
  std::vector<double> serverHit;  // [server] probability a token goes to the server at all
};
RoutingShares routingShares(const Scenario& sc);

enum class ModelRole { Sender, Forwarder, Receiver };
const char* toString(ModelRole r);

// One stage's predicted times (ns), on the card whose stage ends last.
struct StagePrediction {
  double senderNs = 0, forwarderNs = 0, receiverNs = 0;
  // The first chunk's way through the upstream roles and the links; for the combine also the
  // last RDMA batches, which leave together at the end.
  double fillNs = 0;
  int card = 0;  // the card they are for
  // The receivers' work follows the others' instead of overlapping it: the combine's
  // senders walk expert by expert, so a token's partial is complete only near the end.
  bool receiverAfter = false;
  // Each role's binding limit, in words ("sender cores", "NIC out", ...).
  std::string senderLimit, forwarderLimit, receiverLimit;
  double roleNs(ModelRole r) const;
  ModelRole bottleneck() const;
  double stageNs() const;
};

// The stage's time with tiling `t` for its rings (and the scenario's combine knobs).
StagePrediction predictStage(const Scenario& sc, const RoutingShares& shares, RingStage stage,
                             const RingTiling& t);

}  // namespace moe
