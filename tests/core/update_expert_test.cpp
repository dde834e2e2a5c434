#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "core/reference/update_expert.h"
#include "core/util/error.h"

using moe::InputError;
using moe::UpdateExpertArgs;
using moe::updateExpertReference;
using moe::validateUpdateExpert;

namespace {

// A small valid case: 4 ranks, 4 instances (place_per_rank 1).
//   expert 0 -> instances {0, 1}; expert 1 -> {2}; expert 2 -> {3}.
UpdateExpertArgs baseArgs() {
  UpdateExpertArgs a;
  a.bs = 2;
  a.k = 2;
  a.expertIds = {0, 1, 2, 0};
  a.numExperts = 3;
  a.tableCols = 3;
  a.eplbTable = {2, 0, 1,   //
                 1, 2, -1,  //
                 1, 3, -1};
  a.localRankId = 0;
  a.worldSize = 4;
  a.balanceMode = 0;
  return a;
}

UpdateExpertArgs withPruning(UpdateExpertArgs a) {
  a.expertScales = std::vector<float>{0.75f, 0.25f, 0.5f, 0.5f};
  a.pruningThreshold = std::vector<float>{0.1f, 0.1f};
  return a;
}

// Expects validation to fail at `path` with a rule containing `ruleFragment`.
void expectRejected(const UpdateExpertArgs& a, const std::string& path,
                    const std::string& ruleFragment, const std::string& prefix = "") {
  try {
    validateUpdateExpert(a, prefix);
    ADD_FAILURE() << "expected InputError at " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(e.rule().find(ruleFragment), std::string::npos)
        << "rule \"" << e.rule() << "\" lacks \"" << ruleFragment << "\"";
  }
}

}  // namespace

// ---- validation: one test per rule of DESIGN.md §3.1 ----

TEST(UpdateExpertValidation, BaseCaseIsValid) {
  EXPECT_NO_THROW(validateUpdateExpert(baseArgs()));
}

TEST(UpdateExpertValidation, BsMustBePositive) {
  auto a = baseArgs();
  a.bs = 0;
  a.expertIds.clear();
  expectRejected(a, "expert_ids", "0 < BS <= 512");
}

TEST(UpdateExpertValidation, BsAbove512IsRejected) {
  auto a = baseArgs();
  a.bs = 513;
  a.expertIds.assign(513 * 2, 0);
  expectRejected(a, "expert_ids", "0 < BS <= 512");
}

TEST(UpdateExpertValidation, KMustBePositive) {
  auto a = baseArgs();
  a.k = 0;
  a.expertIds.clear();
  expectRejected(a, "expert_ids", "0 < K <= 16");
}

TEST(UpdateExpertValidation, KAbove16IsRejected) {
  auto a = baseArgs();
  a.k = 17;
  a.expertIds.assign(2 * 17, 0);
  expectRejected(a, "expert_ids", "0 < K <= 16");
}

TEST(UpdateExpertValidation, KMustNotExceedNumberOfExperts) {
  auto a = baseArgs();
  a.bs = 1;
  a.k = 4;  // E is 3
  a.expertIds = {0, 1, 2, 0};
  expectRejected(a, "expert_ids", "must not exceed E");
}

TEST(UpdateExpertValidation, ExpertCountMustBePositive) {
  auto a = baseArgs();
  a.numExperts = 0;
  a.eplbTable.clear();
  expectRejected(a, "eplb_table", "0 < E <= 1024");
}

TEST(UpdateExpertValidation, ExpertCountAbove1024IsRejected) {
  auto a = baseArgs();
  a.numExperts = 1025;
  a.eplbTable.assign(1025 * 3, 1);
  expectRejected(a, "eplb_table", "0 < E <= 1024");
}

TEST(UpdateExpertValidation, ExpertIdsMustHoldBsTimesK) {
  auto a = baseArgs();
  a.expertIds.pop_back();
  expectRejected(a, "expert_ids", "BS*K = 4");
}

TEST(UpdateExpertValidation, WorldSizeBelow2IsRejected) {
  auto a = baseArgs();
  a.worldSize = 1;
  expectRejected(a, "world_size", "2 <= world_size <= 768");
}

TEST(UpdateExpertValidation, WorldSizeAbove768IsRejected) {
  auto a = baseArgs();
  a.worldSize = 769;
  expectRejected(a, "world_size", "2 <= world_size <= 768");
}

TEST(UpdateExpertValidation, TableNeedsAtLeastTwoColumns) {
  auto a = baseArgs();
  a.tableCols = 1;
  a.eplbTable = {1, 1, 1};
  expectRejected(a, "eplb_table", "2 <= F <= world_size+1");
}

TEST(UpdateExpertValidation, TableColumnsMustNotExceedWorldSizePlusOne) {
  auto a = baseArgs();
  a.worldSize = 2;  // 4 instances on 2 ranks; F = 3 = world_size + 1 is the limit
  EXPECT_NO_THROW(validateUpdateExpert(a));
  a.tableCols = 4;
  a.eplbTable = {2, 0, 1,  -1,  //
                 1, 2, -1, -1,  //
                 1, 3, -1, -1};
  expectRejected(a, "eplb_table", "2 <= F <= world_size+1");
}

TEST(UpdateExpertValidation, TableMustHoldRowsTimesColumns) {
  auto a = baseArgs();
  a.eplbTable.push_back(0);
  expectRejected(a, "eplb_table", "E*F = 9");
}

TEST(UpdateExpertValidation, InstanceCountMustBeAtLeastOne) {
  auto a = baseArgs();
  a.eplbTable[3] = 0;  // expert 1
  expectRejected(a, "eplb_table[1][0]", "1 <= count <= min(world_size, F-1)");
}

TEST(UpdateExpertValidation, InstanceCountMustFitInTheRow) {
  auto a = baseArgs();
  a.eplbTable[6] = 3;  // expert 2 claims 3 instances but F-1 = 2
  expectRejected(a, "eplb_table[2][0]", "1 <= count <= min(world_size, F-1)");
}

TEST(UpdateExpertValidation, TotalInstancesAbove1024AreRejected) {
  // 768 ranks, 512 experts with 3 instances each: 1536 instances.
  UpdateExpertArgs a;
  a.bs = 1;
  a.k = 1;
  a.expertIds = {0};
  a.numExperts = 512;
  a.tableCols = 4;
  a.worldSize = 768;
  for (int e = 0; e < 512; ++e)
    for (int c : {3, 3 * e, 3 * e + 1, 3 * e + 2}) a.eplbTable.push_back(c);
  expectRejected(a, "eplb_table", "must be <= 1024");
}

TEST(UpdateExpertValidation, EveryRankMustHoldTheSameNumberOfInstances) {
  auto a = baseArgs();
  // 5 instances on 4 ranks: place_per_rank would not be whole.
  a.eplbTable = {2, 0, 1, 2, 2, 3, 1, 4, -1};
  expectRejected(a, "eplb_table", "multiple of world_size");
}

TEST(UpdateExpertValidation, InstanceIdMustBeBelowWorldSizeTimesPlacePerRank) {
  auto a = baseArgs();
  a.eplbTable[7] = 4;  // instances are 0..3
  expectRejected(a, "eplb_table[2][1]", "[0, 4)");
}

TEST(UpdateExpertValidation, NegativeInstanceIdIsRejected) {
  auto a = baseArgs();
  a.eplbTable[2] = -1;
  expectRejected(a, "eplb_table[0][2]", "[0, 4)");
}

TEST(UpdateExpertValidation, DuplicateInstanceIdIsRejectedAtItsSecondUse) {
  auto a = baseArgs();
  a.eplbTable[7] = 1;  // expert 2 reuses expert 0's instance 1
  expectRejected(a, "eplb_table[2][1]", "unique");
}

TEST(UpdateExpertValidation, PaddingCellsAreNotChecked) {
  auto a = baseArgs();
  a.eplbTable[5] = 12345;
  a.eplbTable[8] = -7;
  EXPECT_NO_THROW(validateUpdateExpert(a));
}

TEST(UpdateExpertValidation, ExpertIdMustBeBelowE) {
  auto a = baseArgs();
  a.expertIds[2] = 3;
  expectRejected(a, "expert_ids[1][0]", "[0, 3)");
}

TEST(UpdateExpertValidation, NegativeExpertIdIsRejected) {
  auto a = baseArgs();
  a.expertIds[1] = -1;
  expectRejected(a, "expert_ids[0][1]", "[0, 3)");
}

TEST(UpdateExpertValidation, BalanceModeMustBeZeroOrOne) {
  auto a = baseArgs();
  a.balanceMode = 2;
  expectRejected(a, "balance_mode", "0 (by rank) or 1 (by token)");
  a.balanceMode = -1;
  expectRejected(a, "balance_mode", "0 (by rank) or 1 (by token)");
}

TEST(UpdateExpertValidation, LocalRankIdMustBeInsideTheWorld) {
  auto a = baseArgs();
  a.localRankId = 4;
  expectRejected(a, "local_rank_id", "[0, 4)");
  a.localRankId = -1;
  expectRejected(a, "local_rank_id", "[0, 4)");
  a.balanceMode = 1;  // also in by-token mode
  expectRejected(a, "local_rank_id", "[0, 4)");
}

TEST(UpdateExpertValidation, ScalesWithoutThresholdAreRejected) {
  auto a = withPruning(baseArgs());
  a.pruningThreshold.reset();
  expectRejected(a, "pruning_threshold", "given together");
}

TEST(UpdateExpertValidation, ThresholdWithoutScalesIsRejected) {
  auto a = withPruning(baseArgs());
  a.expertScales.reset();
  expectRejected(a, "expert_scales", "given together");
}

TEST(UpdateExpertValidation, ActiveMaskWithoutPruningInputsIsRejected) {
  auto a = baseArgs();
  a.activeMask = std::vector<uint8_t>{1, 1};
  expectRejected(a, "active_mask", "requires expert_scales and pruning_threshold");
}

TEST(UpdateExpertValidation, ScalesMustHaveTheShapeOfExpertIds) {
  auto a = withPruning(baseArgs());
  a.expertScales->pop_back();
  expectRejected(a, "expert_scales", "BS*K = 4");
}

TEST(UpdateExpertValidation, ThresholdMustHaveKValues) {
  auto a = withPruning(baseArgs());
  a.pruningThreshold->push_back(0.5f);
  expectRejected(a, "pruning_threshold", "K = 2");
}

TEST(UpdateExpertValidation, NonFiniteScaleOrThresholdIsRejected) {
  auto a = withPruning(baseArgs());
  (*a.expertScales)[1] = std::numeric_limits<float>::quiet_NaN();
  expectRejected(a, "expert_scales[0][1]", "finite");
  a = withPruning(baseArgs());
  (*a.pruningThreshold)[1] = std::numeric_limits<float>::infinity();
  expectRejected(a, "pruning_threshold[1]", "finite");
}

TEST(UpdateExpertValidation, ActiveMaskMustHaveBsValues) {
  auto a = withPruning(baseArgs());
  a.activeMask = std::vector<uint8_t>{1, 1, 1};
  expectRejected(a, "active_mask", "BS = 2");
}

TEST(UpdateExpertValidation, ActiveMaskTrueAfterFalseIsRejected) {
  auto a = withPruning(baseArgs());
  a.bs = 3;
  a.expertIds = {0, 1, 2, 0, 1, 2};
  a.expertScales = std::vector<float>(6, 0.5f);
  a.activeMask = std::vector<uint8_t>{1, 0, 1};  // seed 002's own counter-example
  expectRejected(a, "active_mask[2]", "before any false");
  a.activeMask = std::vector<uint8_t>{1, 1, 0};
  EXPECT_NO_THROW(validateUpdateExpert(a));
  a.activeMask = std::vector<uint8_t>{0, 0, 0};
  EXPECT_NO_THROW(validateUpdateExpert(a));
}

TEST(UpdateExpertValidation, PathPrefixIsPrepended) {
  auto a = baseArgs();
  a.worldSize = 1;
  expectRejected(a, "ranks[3].world_size", "2 <= world_size", "ranks[3]");
  a = baseArgs();
  a.eplbTable[7] = 1;
  expectRejected(a, "ranks[3].eplb_table[2][1]", "unique", "ranks[3]");
}

TEST(UpdateExpertValidation, ReferenceRefusesInvalidInput) {
  auto a = baseArgs();
  a.expertIds[0] = 99;
  EXPECT_THROW(updateExpertReference(a), InputError);
}

// ---- hand-worked cases ----

TEST(UpdateExpertReference, SingleInstanceExpertMapsToItsOnlyInstanceInBothModes) {
  auto a = baseArgs();
  a.bs = 3;
  a.k = 1;
  a.expertIds = {1, 2, 1};
  for (int mode : {0, 1}) {
    for (int rank = 0; rank < 4; ++rank) {
      a.balanceMode = mode;
      a.localRankId = rank;
      const auto r = updateExpertReference(a);
      EXPECT_EQ(r.balancedIds, (std::vector<int32_t>{2, 3, 2})) << "mode " << mode;
      EXPECT_EQ(r.placePerRank, 1);
      EXPECT_FALSE(r.balancedActiveMask.has_value());
    }
  }
}

TEST(UpdateExpertReference, ByRankUsesCeilOfWorldSizeOverCount) {
  // 4 ranks, expert 0 has 3 instances {5, 6, 7}: ceil(4/3) = 2 ranks per instance, so
  // ranks 0,1 -> place 1 (5) and ranks 2,3 -> place 2 (6); place 3 is never used.
  // Experts 1..4 hold the other instances, so 8 instances give place_per_rank 2.
  UpdateExpertArgs a;
  a.bs = 2;
  a.k = 2;
  a.expertIds = {0, 1, 1, 0};
  a.numExperts = 5;
  a.tableCols = 4;
  a.eplbTable = {3, 5, 6,  7,   //
                 2, 0, 1,  -1,  //
                 1, 2, -1, -1,  //
                 1, 3, -1, -1,  //
                 1, 4, -1, -1};
  a.worldSize = 4;
  a.balanceMode = 0;
  const int32_t want0[] = {5, 5, 6, 6};
  const int32_t want1[] = {0, 0, 1, 1};  // ceil(4/2) = 2 ranks per instance
  for (int rank = 0; rank < 4; ++rank) {
    a.localRankId = rank;
    const auto r = updateExpertReference(a);
    EXPECT_EQ(r.placePerRank, 2);
    EXPECT_EQ(r.balancedIds,
              (std::vector<int32_t>{want0[rank], want1[rank], want1[rank], want0[rank]}))
        << "rank " << rank;
  }
}

TEST(UpdateExpertReference, ByTokenRoundRobinsOverInstancesByTokenNotElement) {
  // Expert 0 has instances {3, 1, 2}, expert 1 has {0}. With K = 2 the element index and the
  // token index differ: seed 002's "i % place_num" slip would give token 0's second slot
  // place 2; DESIGN.md §3.1 uses the token.
  UpdateExpertArgs a;
  a.bs = 4;
  a.k = 2;
  a.expertIds = {0, 1,  //
                 1, 0,  //
                 0, 1,  //
                 1, 0};
  a.numExperts = 2;
  a.tableCols = 4;
  a.eplbTable = {3, 3, 1,  2,  //
                 1, 0, -1, -1};
  a.worldSize = 4;
  a.localRankId = 2;
  a.balanceMode = 1;
  const auto r = updateExpertReference(a);
  EXPECT_EQ(r.placePerRank, 1);
  // token t, expert 0 -> place t % 3 + 1: tokens 0,1,2,3 -> 3, 1, 2, 3.
  EXPECT_EQ(r.balancedIds, (std::vector<int32_t>{3, 0, 0, 1, 2, 0, 0, 3}));
}

TEST(UpdateExpertReference, PruningKeepsScalesAtOrAboveThresholdTimesRowSum) {
  auto a = baseArgs();
  a.bs = 3;
  a.k = 2;
  a.expertIds = {0, 1, 2, 0, 1, 2};
  // Row sums are 1.0, 2.0 and 1.0 (exact in fp32).
  a.expertScales = std::vector<float>{0.75f, 0.25f,  //
                                      1.5f,  0.5f,   //
                                      0.5f,  0.5f};
  a.pruningThreshold = std::vector<float>{0.5f, 0.25f};
  const auto r = updateExpertReference(a);
  ASSERT_TRUE(r.balancedActiveMask.has_value());
  // token 0: 0.75 >= 0.5*1 keep; 0.25 >= 0.25*1 keep (tie at equality keeps).
  // token 1: 1.5 >= 0.5*2 keep; 0.5 >= 0.25*2 keep (tie).
  // token 2: 0.5 >= 0.5 keep (tie); 0.5 >= 0.25 keep.
  EXPECT_EQ(*r.balancedActiveMask, (std::vector<uint8_t>{1, 1, 1, 1, 1, 1}));

  a.pruningThreshold = std::vector<float>{0.5f, 0.3f};
  const auto r2 = updateExpertReference(a);
  // Second slot now needs >= 0.3*sum: 0.25 < 0.3, 0.5 < 0.6, 0.5 >= 0.3.
  EXPECT_EQ(*r2.balancedActiveMask, (std::vector<uint8_t>{1, 0, 1, 0, 1, 1}));
  // Pruning never changes the mapping.
  EXPECT_EQ(r.balancedIds, r2.balancedIds);
}

TEST(UpdateExpertReference, InactiveTokenGetsAnAllFalseRow) {
  auto a = baseArgs();
  a.bs = 3;
  a.expertIds = {0, 1, 2, 0, 1, 2};
  a.expertScales = std::vector<float>{0.6f, 0.4f, 0.6f, 0.4f, 0.6f, 0.4f};
  a.pruningThreshold = std::vector<float>{0.0f, 0.0f};  // keeps everything that is active
  a.activeMask = std::vector<uint8_t>{1, 0, 0};
  const auto r = updateExpertReference(a);
  ASSERT_TRUE(r.balancedActiveMask.has_value());
  EXPECT_EQ(*r.balancedActiveMask, (std::vector<uint8_t>{1, 1, 0, 0, 0, 0}));
}

TEST(UpdateExpertReference, MissingActiveMaskMeansEveryTokenIsActive) {
  auto a = withPruning(baseArgs());
  a.pruningThreshold = std::vector<float>{0.0f, 0.0f};
  const auto r = updateExpertReference(a);
  EXPECT_EQ(*r.balancedActiveMask, (std::vector<uint8_t>{1, 1, 1, 1}));
}

TEST(UpdateExpertReference, PruningSumIsFp32InSlotOrder) {
  // In fp32, 2^24 + 1 rounds back to 2^24, so the slot-order sum of {2^24, 1, 1} is exactly
  // 2^24 and a threshold of 2^-24 gives a bound of exactly 1: the scale 1 ties and is kept.
  // Summed in double (2^24 + 2) the bound would exceed 1 and prune it.
  UpdateExpertArgs a = baseArgs();
  a.bs = 1;
  a.k = 3;
  a.expertIds = {0, 1, 2};
  a.expertScales = std::vector<float>{16777216.0f, 1.0f, 1.0f};
  const float t = std::ldexp(1.0f, -24);
  a.pruningThreshold = std::vector<float>{0.0f, t, t};
  const auto r = updateExpertReference(a);
  EXPECT_EQ(*r.balancedActiveMask, (std::vector<uint8_t>{1, 1, 1}));
}

// ---- randomized structural properties ----

namespace {

// A random valid case: world size, place_per_rank, experts and instance counts are drawn,
// then a random permutation of 0..total-1 is dealt out as instance ids.
UpdateExpertArgs randomArgs(std::mt19937& rng) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  UpdateExpertArgs a;
  a.worldSize = uni(2, 48);
  const int ppr = uni(1, std::min(8, 1024 / a.worldSize));
  const int total = a.worldSize * ppr;
  // Every expert needs an instance and holds at most world_size of them.
  a.numExperts = uni(std::max(1, ppr), std::min(total, 96));
  std::vector<int> count(size_t(a.numExperts), 1);
  for (int left = total - a.numExperts; left > 0;) {
    const int e = uni(0, a.numExperts - 1);
    if (count[size_t(e)] < a.worldSize) ++count[size_t(e)], --left;
  }
  const int maxCount = *std::max_element(count.begin(), count.end());
  a.tableCols = uni(std::max(2, maxCount + 1), a.worldSize + 1);
  std::vector<int32_t> inst(static_cast<size_t>(total));
  std::iota(inst.begin(), inst.end(), 0);
  std::shuffle(inst.begin(), inst.end(), rng);
  size_t next = 0;
  for (int e = 0; e < a.numExperts; ++e) {
    a.eplbTable.push_back(count[size_t(e)]);
    for (int c = 1; c < a.tableCols; ++c)
      a.eplbTable.push_back(c <= count[size_t(e)] ? inst[next++] : uni(-5, 2000));  // padding
  }
  a.k = uni(1, std::min(16, a.numExperts));
  a.bs = uni(1, 64);
  for (int i = 0; i < a.bs * a.k; ++i) a.expertIds.push_back(uni(0, a.numExperts - 1));
  a.localRankId = uni(0, a.worldSize - 1);
  a.balanceMode = uni(0, 1);
  return a;
}

// Position (1-based column) of instance `id` in expert e's row, or -1 if not an instance.
int placeOf(const UpdateExpertArgs& a, int e, int32_t id) {
  const int32_t* row = &a.eplbTable[size_t(e) * a.tableCols];
  for (int c = 1; c <= row[0]; ++c)
    if (row[c] == id) return c;
  return -1;
}

}  // namespace

TEST(UpdateExpertRandomized, OutputsAreInstancesOfTheRightExpertAndFollowTheMode) {
  std::mt19937 rng(2002);
  for (int iter = 0; iter < 200; ++iter) {
    const UpdateExpertArgs a = randomArgs(rng);
    SCOPED_TRACE("case " + std::to_string(iter));
    ASSERT_NO_THROW(validateUpdateExpert(a));
    const auto r = updateExpertReference(a);
    ASSERT_EQ(r.balancedIds.size(), size_t(a.bs * a.k));
    int total = 0;
    for (int e = 0; e < a.numExperts; ++e) total += a.eplbTable[size_t(e) * a.tableCols];
    EXPECT_EQ(r.placePerRank * a.worldSize, total);

    // For mode 0: the place each expert got; it must not depend on the token.
    std::vector<int> placeForExpert(size_t(a.numExperts), -1);
    for (int t = 0; t < a.bs; ++t) {
      for (int j = 0; j < a.k; ++j) {
        const int e = a.expertIds[size_t(t * a.k + j)];
        const int count = a.eplbTable[size_t(e) * a.tableCols];
        const int place = placeOf(a, e, r.balancedIds[size_t(t * a.k + j)]);
        ASSERT_GE(place, 1) << "token " << t << " slot " << j << ": not an instance of " << e;
        if (a.balanceMode == 1) {
          // Round-robin by token: token t uses the (t mod count)-th instance.
          EXPECT_EQ(place - 1, t % count) << "token " << t << " expert " << e;
        } else {
          if (placeForExpert[size_t(e)] < 0) placeForExpert[size_t(e)] = place;
          EXPECT_EQ(place, placeForExpert[size_t(e)]) << "token " << t << " expert " << e;
        }
      }
    }
  }
}

TEST(UpdateExpertRandomized, ByRankSpreadsRanksOverInstancesInContiguousGroups) {
  std::mt19937 rng(3003);
  for (int iter = 0; iter < 200; ++iter) {
    UpdateExpertArgs a = randomArgs(rng);
    SCOPED_TRACE("case " + std::to_string(iter));
    a.balanceMode = 0;
    a.bs = 1;
    a.k = a.numExperts < 16 ? a.numExperts : 16;
    a.expertIds.resize(size_t(a.k));
    std::iota(a.expertIds.begin(), a.expertIds.end(), 0);  // one slot per expert 0..k-1
    // Which place every rank picks for every expert.
    std::vector<std::vector<int>> place(size_t(a.worldSize));
    for (int rank = 0; rank < a.worldSize; ++rank) {
      a.localRankId = rank;
      const auto r = updateExpertReference(a);
      for (int j = 0; j < a.k; ++j)
        place[size_t(rank)].push_back(placeOf(a, j, r.balancedIds[size_t(j)]));
    }
    for (int e = 0; e < a.k; ++e) {
      const int count = a.eplbTable[size_t(e) * a.tableCols];
      const int group = (a.worldSize + count - 1) / count;
      std::vector<int> ranksPerPlace(size_t(count) + 1, 0);
      for (int rank = 0; rank < a.worldSize; ++rank) {
        const int p = place[size_t(rank)][size_t(e)];
        ASSERT_GE(p, 1);
        if (rank > 0) {
          EXPECT_GE(p, place[size_t(rank - 1)][size_t(e)]) << "groups are contiguous";
        }
        ++ranksPerPlace[size_t(p)];
      }
      for (int p = 1; p <= count; ++p) EXPECT_LE(ranksPerPlace[size_t(p)], group);
      EXPECT_EQ(ranksPerPlace[1], std::min(group, a.worldSize)) << "place 1 is filled first";
    }
  }
}

TEST(UpdateExpertRandomized, PruningMasksAreAllFalseForInactiveTokensAndMonotoneInThreshold) {
  std::mt19937 rng(4004);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int iter = 0; iter < 200; ++iter) {
    UpdateExpertArgs a = randomArgs(rng);
    SCOPED_TRACE("case " + std::to_string(iter));
    std::vector<float> scales;
    for (int i = 0; i < a.bs * a.k; ++i) scales.push_back(unit(rng));
    a.expertScales = scales;
    const int activeCount = std::uniform_int_distribution<int>(0, a.bs)(rng);
    a.activeMask = std::vector<uint8_t>(size_t(a.bs), 0);
    std::fill_n(a.activeMask->begin(), activeCount, 1);

    a.pruningThreshold = std::vector<float>(size_t(a.k), 0.0f);
    const auto keepAll = *updateExpertReference(a).balancedActiveMask;
    a.pruningThreshold = std::vector<float>(size_t(a.k), 1.5f);  // above any share of a sum
    const auto keepNone = *updateExpertReference(a).balancedActiveMask;
    std::vector<float> mid;
    for (int j = 0; j < a.k; ++j) mid.push_back(unit(rng) * 0.5f);
    a.pruningThreshold = mid;
    const auto keepSome = *updateExpertReference(a).balancedActiveMask;

    for (int t = 0; t < a.bs; ++t) {
      const bool active = t < activeCount;
      float sum = 0.0f;
      for (int j = 0; j < a.k; ++j) sum += scales[size_t(t * a.k + j)];
      for (int j = 0; j < a.k; ++j) {
        const size_t i = size_t(t * a.k + j);
        EXPECT_EQ(keepAll[i], active ? 1 : 0) << "t " << t << " j " << j;
        // A zero scale in an all-zero row ties at 0 >= 1.5*0, so only positive sums prune.
        if (sum > 0.0f) {
          EXPECT_EQ(keepNone[i], 0) << "t " << t << " j " << j;
        }
        EXPECT_LE(keepSome[i], keepAll[i]) << "raising the threshold never keeps more";
        EXPECT_GE(keepSome[i], keepNone[i]);
      }
    }
  }
}

TEST(UpdateExpertRandomized, CorruptingOneInstanceIdIsCaughtAtThatCell) {
  std::mt19937 rng(5005);
  for (int iter = 0; iter < 200; ++iter) {
    UpdateExpertArgs a = randomArgs(rng);
    SCOPED_TRACE("case " + std::to_string(iter));
    // Copy the id of the first instance into the last instance cell of the table.
    int lastE = -1, lastC = -1;
    for (int e = 0; e < a.numExperts; ++e) {
      const int count = a.eplbTable[size_t(e) * a.tableCols];
      if (e > 0 || count > 1) lastE = e, lastC = count;
    }
    if (lastE < 0) continue;  // a single instance: nothing to duplicate
    a.eplbTable[size_t(lastE) * a.tableCols + lastC] = a.eplbTable[1];
    expectRejected(a, "eplb_table[" + std::to_string(lastE) + "][" + std::to_string(lastC) + "]",
                   "unique");
  }
}

// ---- the real operator's rules (UpdateExpertRules::RealOperator) ----

using moe::UpdateExpertRules;

TEST(UpdateExpertRealOp, PipelineOnlyRulesAreWarningsThereAndErrorsInThePipeline) {
  UpdateExpertArgs a = baseArgs();
  a.eplbTable = {2, 0, 0, 1, 1, -1, 1, 1, -1};  // instance ids repeated (rank ids, op-plugin style)
  const auto w = validateUpdateExpert(a, "", UpdateExpertRules::RealOperator);
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w.front().path.rfind("eplb_table", 0), 0u) << w.front().path;
  // The scenario path keeps the rule and says why.
  expectRejected(a, "eplb_table[0][2]", "the pipeline needs it");
  // The output is what the kernel computes: the row's entries, whatever they are.
  std::vector<moe::UpdateExpertWarning> warnings;
  const auto r = updateExpertReference(a, UpdateExpertRules::RealOperator, &warnings);
  EXPECT_EQ(r.balancedIds, (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(r.placePerRank, 0);
  EXPECT_EQ(warnings.size(), w.size());
}

TEST(UpdateExpertRealOp, Mode1IgnoresWorldSizeAndLocalRank) {
  UpdateExpertArgs a = baseArgs();
  a.balanceMode = 1;
  a.worldSize = 1;
  a.localRankId = 9;
  EXPECT_TRUE(validateUpdateExpert(a, "", UpdateExpertRules::RealOperator).empty());
  expectRejected(a, "world_size", "real operator accepts this");
  a.balanceMode = 0;
  try {
    validateUpdateExpert(a, "", UpdateExpertRules::RealOperator);
    ADD_FAILURE() << "mode 0 must check world_size";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "world_size");
    EXPECT_NE(e.rule().find("[561002]"), std::string::npos) << e.rule();
  }
}

TEST(UpdateExpertRealOp, OutOfRowContentsStayErrorsBecauseTheKernelWouldReadOutOfBounds) {
  UpdateExpertArgs a = baseArgs();
  a.eplbTable[0] = 5;  // count beyond the row
  EXPECT_THROW(validateUpdateExpert(a, "", UpdateExpertRules::RealOperator), InputError);
  a = baseArgs();
  a.expertIds[1] = 7;  // no such table row
  EXPECT_THROW(validateUpdateExpert(a, "", UpdateExpertRules::RealOperator), InputError);
}

TEST(UpdateExpertRealOp, UnorderedMaskComputesEachTokenByItsOwnFlag) {
  UpdateExpertArgs a = withPruning(baseArgs());
  a.activeMask = std::vector<uint8_t>{0, 1};
  std::vector<moe::UpdateExpertWarning> warnings;
  const auto r = updateExpertReference(a, UpdateExpertRules::RealOperator, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].path, "active_mask[1]");
  EXPECT_EQ(*r.balancedActiveMask, (std::vector<uint8_t>{0, 0, 1, 1}));
  expectRejected(a, "active_mask[1]", "before any false");
}
