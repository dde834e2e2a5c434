#pragma once
// DeepEP get_dispatch_layout (DESIGN.md §3.2, seed 003): per-rank, per-server and per-expert token
// counts and the token×rank membership matrix that dispatch is planned from. This is the
// golden reference: plain single-threaded loops that are obviously correct.

#include <cstdint>
#include <vector>

namespace moe {

// Bounds that refuse absurd inputs before anything is allocated.
inline constexpr int kLayoutMaxTokens = 65536;
inline constexpr int kLayoutMaxTopk = 64;
inline constexpr int kLayoutMaxRanks = 1024;
inline constexpr int kLayoutMaxExperts = 4096;

struct LayoutArgs {
  int numTokens = 0;             // T
  int numTopk = 0;               // K
  std::vector<int32_t> topkIdx;  // [T*K] row-major physical expert ids; negative = skip
  int numRanks = 0;              // R
  int numExperts = 0;            // E, a multiple of R; expert e lives on rank e / (E/R)
  int ranksPerServer = 8;        // NVLink/HCCS peers per server (DeepEP NUM_MAX_NVL_PEERS)
};

struct LayoutResult {
  std::vector<int32_t> numTokensPerRank;      // [R]
  std::vector<int32_t> numTokensPerRdmaRank;  // [R/ranksPerServer], or [1] on one server
  std::vector<int32_t> numTokensPerExpert;    // [E]
  std::vector<uint8_t> isTokenInRank;         // [T*R], 1 = token goes to that rank
};

// Number of servers (RDMA ranks): everything on one server when R <= ranksPerServer.
int layoutServers(int numRanks, int ranksPerServer);

// Throws moe::InputError naming the field ("topk_idx[i][j]", "num_ranks", "num_experts",
// "ranks_per_server", ...) and the rule.
void validateLayout(const LayoutArgs& args);

// The golden reference. Validates first (throws moe::InputError).
LayoutResult layoutReference(const LayoutArgs& args);

}  // namespace moe
