#pragma once
// EPLB table generation: the hierarchical expert load-balancing policy DeepSeek published
// (deepseek-ai/EPLB), written as plain loops, plus the conversion of its output into this
// product's MoeUpdateExpert eplb_table (DESIGN.md §3.1).
//
// Three steps, each a function of its own so tests can pin them down separately:
//   1. balancedPacking   groups of experts onto nodes: heaviest first, into the lightest pack
//                        that still has room; every pack takes the same number of items.
//   2. replicateExperts  inside each node, every extra physical slot goes to the logical
//                        expert with the highest load per replica.
//   3. balancedPacking   again, the node's physical experts onto its GPUs.
// rebalanceExperts composes them; when the group count is not a multiple of the node count
// it uses the global policy (one group, one node), as the published code does.
//
// Ties are broken deterministically: on equal load the lower index wins (sorting is stable
// by index, the lightest pack is the first one found, the heaviest expert the first one).

#include <cstdint>
#include <string>
#include <vector>

namespace moe {

struct Packing {
  std::vector<int> pack;        // item -> pack
  std::vector<int> rankInPack;  // item -> position inside its pack (order of arrival)
};

// Packs weight.size() items into numPacks packs of weight.size()/numPacks items each.
// With one item per pack the identity assignment is returned, as in the published code.
// Requires numPacks > 0 and weight.size() divisible by numPacks.
Packing balancedPacking(const std::vector<double>& weight, int numPacks);

struct Replication {
  std::vector<int> phy2log;  // [numPhysical] physical slot -> logical expert
  std::vector<int> rank;     // [numPhysical] replica index of that slot within its expert
  std::vector<int> logcnt;   // [numLogical] replicas per logical expert
};

// Slot i < numLogical holds expert i; each further slot goes to the expert with the highest
// weight / logcnt. maxReplicas > 0 caps the replicas of one expert (experts at the cap are
// skipped); 0 means no cap, the published behaviour. Requires numPhysical >= weight.size()
// and, with a cap, numPhysical <= cap * weight.size().
Replication replicateExperts(const std::vector<double>& weight, int numPhysical,
                             int maxReplicas = 0);

struct EplbInput {
  std::vector<std::vector<double>> weight;  // [layers][logical experts], load per expert
  int numReplicas = 0;                      // physical expert slots per layer
  int numGroups = 1;
  int numNodes = 1;
  int numGpus = 1;
  // Extension for MoeUpdateExpert, whose table allows at most worldSize instances per expert:
  // > 0 caps each logical expert's replicas. 0 = uncapped (the published policy).
  int maxReplicas = 0;
};

struct EplbResult {
  std::vector<std::vector<int>> phy2log;               // [layers][numReplicas]
  std::vector<std::vector<std::vector<int>>> log2phy;  // [layers][logical][maxLogcnt], -1 padded
  std::vector<std::vector<int>> logcnt;                // [layers][logical]
  bool hierarchical = true;  // false: the global policy was used (groups % nodes != 0)
};

// Checks every rule; throws moe::InputError whose path is pathPrefix + the input key
// ("weight", "num_replicas", "num_groups", "num_nodes", "num_gpus", "max_replicas").
void validateEplb(const EplbInput& in, const std::string& pathPrefix = "");

// Validates, then runs the policy on every layer.
EplbResult rebalanceExperts(const EplbInput& in);

// One layer's placement in MoeUpdateExpert's format: row e of the table is
// [count, inst_1 .. inst_count, -1 padding], with the instances in ascending order, and
// instance p lives on rank p / placePerRank.
struct UpdateExpertTable {
  std::vector<std::vector<int>> rows;  // [logical][maxCount + 1]
  int placePerRank = 0;
};
UpdateExpertTable toUpdateExpertTable(const std::vector<int>& phy2log, int numLogical, int numGpus);

// What the product runs before MoeUpdateExpert: the published policy on one layer's load,
// unless that placement's per-card max/mean is worse than the identity placement's (it can
// be: greedy packing is not optimal, and a lucky contiguous layout sometimes beats it). Then
// it keeps the identity placement (expert e on card e * numGpus / E) and fills each card's
// spare slots with replicas of its own heaviest expert, which leaves every card's load as it
// was; a card with no expert of its own takes a replica of the heaviest expert per replica,
// which can only lower the maximum. So balancing never makes the cards less even.
struct Placement {
  std::vector<int> phy2log;   // [numReplicas]
  bool keptIdentity = false;  // true: the published policy's placement was worse on this load
  bool hierarchical = true;   // which published policy ran
  double identityMaxOverMean = 0;
  double maxOverMean = 0;  // of the placement returned
};
Placement placeExperts(const std::vector<double>& weight, int numReplicas, int numGroups,
                       int numNodes, int numGpus, int maxReplicas = 0);

// The identity placement's card of logical expert e: e * numGpus / E (contiguous blocks).
int identityCard(int e, int numLogical, int numGpus);

// max/mean of per-card loads; 1 when the total is 0.
double maxOverMean(const std::vector<double>& load);

// The per-card load of a placement: each physical slot carries weight[log] / logcnt[log].
std::vector<double> cardLoad(const std::vector<double>& weight, const std::vector<int>& phy2log,
                             int numGpus);

}  // namespace moe
