// EPLB table generation (core/plan/eplb.h): hand-worked cases for each step, the composition,
// every validation rule, and properties on random inputs.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "core/plan/eplb.h"
#include "core/reference/update_expert.h"
#include "core/util/error.h"
#include "core/util/rng.h"

using namespace moe;
using moe::InputError;
using moe::Rng;

namespace {

std::string errorPath(const EplbInput& in) {
  try {
    validateEplb(in);
  } catch (const InputError& e) {
    return e.path();
  }
  return "(accepted)";
}

EplbInput smallInput() {
  EplbInput in;
  in.weight = {{1, 8, 4, 3}};
  in.numReplicas = 8;
  in.numGroups = 2;
  in.numNodes = 2;
  in.numGpus = 4;
  return in;
}

}  // namespace

// weights 5 1 4 2 3 3 into 2 packs of 3, heaviest first into the lightest pack with room:
//   5->A(5)  4->B(4)  3[i4]->B(7)  3[i5]->A(8)  2->B(9, full)  1->A(9)
TEST(EplbPacking, HeaviestFirstIntoTheLightestPackWithRoom) {
  const Packing p = balancedPacking({5, 1, 4, 2, 3, 3}, 2);
  EXPECT_EQ(p.pack, (std::vector<int>{0, 0, 1, 1, 1, 0}));
  EXPECT_EQ(p.rankInPack, (std::vector<int>{0, 2, 0, 2, 1, 1}));
}

TEST(EplbPacking, EqualLoadsGoToTheLowerIndex) {
  // Equal items keep index order; equal packs prefer the lower pack.
  const Packing p = balancedPacking({1, 1, 1, 1}, 2);
  EXPECT_EQ(p.pack, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(p.rankInPack, (std::vector<int>{0, 0, 1, 1}));
}

TEST(EplbPacking, OneItemPerPackIsTheIdentity) {
  const Packing p = balancedPacking({1, 2, 3}, 3);
  EXPECT_EQ(p.pack, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(p.rankInPack, (std::vector<int>{0, 0, 0}));
}

// weights 6 2 3, 6 slots: slot 3 -> e0 (6), slot 4 -> e0 (3 vs e2's 3: tie, lower index),
// slot 5 -> e2 (3 > 2 = e0's 6/3 = e1's 2).
TEST(EplbReplication, HeaviestPerReplicaGetsEachExtraSlot) {
  const Replication r = replicateExperts({6, 2, 3}, 6);
  EXPECT_EQ(r.phy2log, (std::vector<int>{0, 1, 2, 0, 0, 2}));
  EXPECT_EQ(r.rank, (std::vector<int>{0, 0, 0, 1, 2, 1}));
  EXPECT_EQ(r.logcnt, (std::vector<int>{3, 1, 2}));
}

TEST(EplbReplication, CapSkipsExpertsWithEnoughReplicas) {
  const Replication r = replicateExperts({6, 2, 3}, 6, 2);
  EXPECT_EQ(r.phy2log, (std::vector<int>{0, 1, 2, 0, 2, 1}));
  EXPECT_EQ(r.logcnt, (std::vector<int>{2, 2, 2}));
}

// Worked by hand: groups {e0,e1}=9 and {e2,e3}=7, one group per node (identity packing).
// Node 0 (loads 1, 8) gets 4 slots: e0, e1, e1, e1; per-slot loads 1, 8/3, 8/3, 8/3 pack onto
// its 2 GPUs as {p1, p3} and {p2, p0}. Node 1 (loads 4, 3): e2, e3, e2, e3, loads 2 1.5 2 1.5,
// packed {p0, p1} and {p2, p3}.
TEST(EplbHierarchical, HandWorkedComposition) {
  const EplbResult r = rebalanceExperts(smallInput());
  EXPECT_TRUE(r.hierarchical);
  EXPECT_EQ(r.phy2log[0], (std::vector<int>{1, 1, 1, 0, 2, 3, 2, 3}));
  EXPECT_EQ(r.logcnt[0], (std::vector<int>{1, 3, 2, 2}));
  // Replica order: slot p of expert e is log2phy[e][rank of p within e].
  EXPECT_EQ(r.log2phy[0][1], (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(r.log2phy[0][0], (std::vector<int>{3, -1, -1}));
  EXPECT_EQ(r.log2phy[0][2], (std::vector<int>{4, 6, -1}));
}

// The two-layer example that deepseek-ai/EPLB documents (12 experts, 16 replicas, 4 groups,
// 2 nodes, 8 GPUs): our output matches the placement it prints.
TEST(EplbHierarchical, MatchesThePublishedExample) {
  EplbInput in;
  in.weight = {{90, 132, 40, 61, 104, 165, 39, 4, 73, 56, 183, 86},
               {20, 107, 104, 64, 19, 197, 187, 157, 172, 86, 16, 27}};
  in.numReplicas = 16;
  in.numGroups = 4;
  in.numNodes = 2;
  in.numGpus = 8;
  const EplbResult r = rebalanceExperts(in);
  EXPECT_EQ(r.phy2log[0], (std::vector<int>{5, 6, 5, 7, 8, 4, 3, 4, 10, 9, 10, 2, 0, 1, 11, 1}));
  EXPECT_EQ(r.phy2log[1], (std::vector<int>{7, 10, 6, 8, 6, 11, 8, 9, 2, 4, 5, 1, 5, 0, 3, 1}));
}

TEST(EplbHierarchical, GroupsNotDivisibleByNodesUseTheGlobalPolicy) {
  EplbInput in = smallInput();
  in.weight = {{1, 8, 4, 3, 2, 2}};
  in.numGroups = 3;  // 3 % 2 != 0
  in.numReplicas = 8;
  const EplbResult r = rebalanceExperts(in);
  EXPECT_FALSE(r.hierarchical);
  // Global: slots 6, 7 go to e1 (8, then 4 per replica = e2's 4: tie, lower index e1).
  EXPECT_EQ(r.logcnt[0], (std::vector<int>{1, 3, 1, 1, 1, 1}));
}

TEST(EplbValidation, EachRuleNamesItsField) {
  EplbInput in = smallInput();
  EXPECT_EQ(errorPath(in), "(accepted)");
  auto with = [&](auto change) {
    EplbInput c = smallInput();
    change(c);
    return errorPath(c);
  };
  EXPECT_EQ(with([](EplbInput& c) { c.numGroups = 3; }), "num_groups");       // 4 experts % 3
  EXPECT_EQ(with([](EplbInput& c) { c.numGpus = 3; }), "num_gpus");           // 3 % 2 nodes
  EXPECT_EQ(with([](EplbInput& c) { c.numReplicas = 10; }), "num_replicas");  // 10 % 4 gpus
  EXPECT_EQ(with([](EplbInput& c) {
              c.numReplicas = 4;
              c.numGpus = 4;
              c.weight = {{1, 2, 3, 4, 5, 6, 7, 8}};
            }),
            "num_replicas");  // fewer replicas than experts
  EXPECT_EQ(with([](EplbInput& c) { c.weight.clear(); }), "weight");
  EXPECT_EQ(with([](EplbInput& c) { c.weight.push_back({1, 2}); }), "weight[1]");
  EXPECT_EQ(with([](EplbInput& c) { c.weight[0][2] = -1; }), "weight[0][2]");
  EXPECT_EQ(with([](EplbInput& c) { c.numNodes = 0; }), "num_nodes");
  EXPECT_EQ(with([](EplbInput& c) { c.maxReplicas = 1; }),
            "max_replicas");  // 2 experts x 1 < 4 slots
  EXPECT_EQ(with([](EplbInput& c) { c.maxReplicas = -1; }), "max_replicas");
}

TEST(EplbTable, ConvertsToUpdateExpertRowsThatTheKernelAccepts) {
  const EplbResult r = rebalanceExperts(smallInput());
  const UpdateExpertTable t = toUpdateExpertTable(r.phy2log[0], 4, 4);
  EXPECT_EQ(t.placePerRank, 2);
  EXPECT_EQ(t.rows[1], (std::vector<int>{3, 0, 1, 2}));
  EXPECT_EQ(t.rows[0], (std::vector<int>{1, 3, -1, -1}));
  UpdateExpertArgs a;
  a.bs = 1;
  a.k = 2;
  a.expertIds = {1, 3};
  a.numExperts = 4;
  a.tableCols = 4;
  for (const auto& row : t.rows) a.eplbTable.insert(a.eplbTable.end(), row.begin(), row.end());
  a.worldSize = 4;
  for (int rank = 0; rank < 4; ++rank) {
    a.localRankId = rank;
    const UpdateExpertResult u = updateExpertReference(a);
    EXPECT_EQ(r.phy2log[0][static_cast<std::size_t>(u.balancedIds[0])],
              1);  // a replica of expert 1
    EXPECT_EQ(r.phy2log[0][static_cast<std::size_t>(u.balancedIds[1])], 3);
  }
}

// Random inputs: every logical expert has a replica, every card the same number of slots,
// log2phy and phy2log are inverses (the published policy), and the placement the product
// uses (placeExperts) never has a worse per-card max/mean than the identity placement
// (expert e on card e * gpus / E, no redundancy).
TEST(EplbProperty, RandomInputsKeepTheInvariants) {
  Rng rng(2026);
  int hierarchicalCases = 0, fellBack = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    EplbInput in;
    const int nodes = 1 + static_cast<int>(rng.below(4));
    const int gpusPerNode = 1 + static_cast<int>(rng.below(4));
    in.numNodes = nodes;
    in.numGpus = nodes * gpusPerNode;
    const int expertsPerGpu = 1 + static_cast<int>(rng.below(4));
    const int E = in.numGpus * expertsPerGpu;
    in.numReplicas = in.numGpus * (expertsPerGpu + static_cast<int>(rng.below(3)));
    std::vector<int> groupChoices;
    for (int g = 1; g <= E; ++g)
      if (E % g == 0) groupChoices.push_back(g);
    in.numGroups = groupChoices[rng.below(groupChoices.size())];
    const int layers = 1 + static_cast<int>(rng.below(2));
    const bool integral = rng.below(2) == 0;  // small integers make ties likely
    for (int l = 0; l < layers; ++l) {
      std::vector<double> w(static_cast<std::size_t>(E));
      for (double& v : w)
        v = integral ? static_cast<double>(rng.below(5)) : rng.uniform() * rng.uniform() * 100;
      in.weight.push_back(w);
    }
    const EplbResult r = rebalanceExperts(in);
    hierarchicalCases += r.hierarchical && nodes > 1 ? 1 : 0;
    const std::string what = "iteration " + std::to_string(iter);
    for (int l = 0; l < layers; ++l) {
      const auto& p2l = r.phy2log[static_cast<std::size_t>(l)];
      const auto& l2p = r.log2phy[static_cast<std::size_t>(l)];
      const auto& cnt = r.logcnt[static_cast<std::size_t>(l)];
      ASSERT_EQ(static_cast<int>(p2l.size()), in.numReplicas) << what;
      std::vector<int> seen(static_cast<std::size_t>(E), 0);
      for (int log : p2l) ++seen.at(static_cast<std::size_t>(log));
      for (int e = 0; e < E; ++e) {
        ASSERT_GE(cnt[static_cast<std::size_t>(e)], 1) << what;
        ASSERT_EQ(seen[static_cast<std::size_t>(e)], cnt[static_cast<std::size_t>(e)]) << what;
        for (int j = 0; j < static_cast<int>(l2p[static_cast<std::size_t>(e)].size()); ++j) {
          const int phy = l2p[static_cast<std::size_t>(e)][static_cast<std::size_t>(j)];
          if (j < cnt[static_cast<std::size_t>(e)]) {
            ASSERT_GE(phy, 0) << what;
            ASSERT_EQ(p2l[static_cast<std::size_t>(phy)], e) << what;
          } else {
            ASSERT_EQ(phy, -1) << what;
          }
        }
      }
      // Equal slots per card: the table conversion demands it, and checks it.
      const UpdateExpertTable t = toUpdateExpertTable(p2l, E, in.numGpus);
      ASSERT_EQ(t.placePerRank * in.numGpus, in.numReplicas) << what;
      const std::vector<double>& w = in.weight[static_cast<std::size_t>(l)];
      std::vector<double> identityLoad(static_cast<std::size_t>(in.numGpus), 0.0);
      for (int e = 0; e < E; ++e)
        identityLoad[static_cast<std::size_t>(e / expertsPerGpu)] += w[static_cast<std::size_t>(e)];
      const Placement placed =
          placeExperts(w, in.numReplicas, in.numGroups, in.numNodes, in.numGpus);
      fellBack += placed.keptIdentity ? 1 : 0;
      ASSERT_EQ(placed.phy2log.size(), p2l.size()) << what;
      std::vector<int> placedCount(static_cast<std::size_t>(E), 0);
      for (int log : placed.phy2log) ++placedCount.at(static_cast<std::size_t>(log));
      for (int c : placedCount) ASSERT_GE(c, 1) << what;
      const double before = maxOverMean(identityLoad);
      const double after = maxOverMean(cardLoad(w, placed.phy2log, in.numGpus));
      ASSERT_LE(after, before + 1e-9) << what << " groups " << in.numGroups << " nodes " << nodes;
      ASSERT_DOUBLE_EQ(after, placed.maxOverMean) << what;
    }
  }
  EXPECT_GT(hierarchicalCases, 300);
  // The published policy is usually better than the identity, so the guard rarely fires.
  EXPECT_GT(fellBack, 0);
  EXPECT_LT(fellBack, 300);
}

// The published greedy packing can lose to the contiguous layout. w = 4 2 2 6 1 1 on 2 cards:
// identity {4,2,2} {6,1,1} carries 8 | 8. Greedy: 6->A, 4->B, 2->B (6), 2->A (6 = 6, lower
// pack: 8), 1->B (7, full), 1->A (9): 9 | 7, max/mean 1.125. placeExperts keeps the identity.
TEST(EplbPlacement, KeepsTheIdentityWhenThePublishedPolicyIsWorse) {
  const std::vector<double> w{4, 2, 2, 6, 1, 1};
  EplbInput in;
  in.weight = {w};
  in.numReplicas = 6;
  in.numGpus = 2;
  EXPECT_DOUBLE_EQ(maxOverMean(cardLoad(w, rebalanceExperts(in).phy2log[0], 2)), 1.125);
  const Placement p = placeExperts(w, 6, 1, 1, 2);
  EXPECT_TRUE(p.keptIdentity);
  EXPECT_DOUBLE_EQ(p.identityMaxOverMean, 1.0);
  EXPECT_DOUBLE_EQ(p.maxOverMean, 1.0);
  EXPECT_EQ(p.phy2log, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

// Spare slots in the fallback: local replicas keep each card's load; an empty card takes a
// replica of the heaviest expert per replica.
TEST(EplbPlacement, FallbackFillsSpareSlotsWithoutRaisingTheMaximum) {
  const std::vector<double> w{4, 2, 2, 6, 1, 1};
  const Placement p = placeExperts(w, 8, 1, 1, 2);
  EXPECT_LE(p.maxOverMean, p.identityMaxOverMean);
}
