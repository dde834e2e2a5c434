#pragma once
// MoeUpdateExpert (DESIGN.md §3.1, seed 002): EPLB logical→physical expert mapping plus pruning.
// This is the golden reference: plain single-threaded loops that are obviously correct. The
// emulated kernel never calls it; tests compare the two bit-exactly.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moe {

// Limits of the public kernel (seed 002, "参数shape格式约束").
inline constexpr int kUpdateExpertMaxBs = 512;
inline constexpr int kUpdateExpertMaxK = 16;
inline constexpr int kUpdateExpertMaxExperts = 1024;
inline constexpr int kUpdateExpertMinWorldSize = 2;
inline constexpr int kUpdateExpertMaxWorldSize = 768;
inline constexpr int kUpdateExpertMaxInstances = 1024;  // placePerRank * worldSize

struct UpdateExpertArgs {
  int bs = 0;                      // BS: tokens on this rank
  int k = 0;                       // K: experts per token
  std::vector<int32_t> expertIds;  // [bs*k] row-major, logical expert ids
  int numExperts = 0;              // E: rows of eplbTable (logical experts)
  int tableCols = 0;               // F: columns of eplbTable
  std::vector<int32_t> eplbTable;  // [E*F] row e = [count, inst_1 .. inst_count, padding]
  int localRankId = 0;
  int worldSize = 0;
  int balanceMode = 0;                                 // 0: by rank, 1: by token
  std::optional<std::vector<float>> expertScales;      // [bs*k]
  std::optional<std::vector<float>> pruningThreshold;  // [k]
  std::optional<std::vector<uint8_t>> activeMask;      // [bs], nonzero = active
};

struct UpdateExpertResult {
  std::vector<int32_t> balancedIds;  // [bs*k] physical instance ids
  // [bs*k], 1 = keep; present iff expertScales and pruningThreshold were given.
  std::optional<std::vector<uint8_t>> balancedActiveMask;
  int placePerRank = 0;  // instances per rank, derived from the table
};

// Which rules apply. The real operator (aclnnMoeUpdateExpert, its tiling in
// moe_update_expert_tiling.cpp) checks shapes, dtypes and attributes only: it reads
// world_size and local_rank_id only in balance_mode 0, and never looks inside eplb_table or
// checks active_mask's order (the caller guarantees them). The pipeline needs more: instance
// p lives on rank p / place_per_rank, so the table's ids must be exactly 0..total-1 over
// world_size equal ranks, and the kernel's active tokens must be a prefix.
//   Pipeline      every rule is an error (the scenario path);
//   RealOperator  what the real operator refuses is an error, tagged with its error class
//                 ([161001] missing input, [161002] dtype, [561002] shape or value); the
//                 pipeline-only rules become warnings. A few contents the real kernel would
//                 index out of bounds with (undefined on device) stay errors here, since a
//                 reference cannot compute undefined behaviour.
enum class UpdateExpertRules { Pipeline, RealOperator };

// A pipeline-only rule the input breaks; rule says what was expected and found (front ends
// add that the real operator accepts it).
struct UpdateExpertWarning {
  std::string path;
  std::string rule;
};

// Checks every rule of DESIGN.md §3.1. Throws moe::InputError whose path names the argument
// (prefixed by pathPrefix, e.g. "ranks[2]" gives "ranks[2].eplb_table[3][0]") and whose
// rule text says what was expected and what was found.
void validateUpdateExpert(const UpdateExpertArgs& args, const std::string& pathPrefix = "");
// The same under the chosen rules; returns the warnings (always empty under Pipeline).
std::vector<UpdateExpertWarning> validateUpdateExpert(const UpdateExpertArgs& args,
                                                      const std::string& pathPrefix,
                                                      UpdateExpertRules rules);

// Instances per rank implied by a table: total instances / worldSize. Only meaningful on
// arguments that passed validateUpdateExpert.
int updateExpertPlacePerRank(const UpdateExpertArgs& args);

// The golden reference. Validates first (throws moe::InputError), because an invalid table
// would otherwise index out of bounds.
UpdateExpertResult updateExpertReference(const UpdateExpertArgs& args);
// Under RealOperator rules: what the real kernel computes, warnings appended to *warnings.
// placePerRank is 0 when the table is not one the pipeline could use.
UpdateExpertResult updateExpertReference(const UpdateExpertArgs& args, UpdateExpertRules rules,
                                         std::vector<UpdateExpertWarning>* warnings);

}  // namespace moe
