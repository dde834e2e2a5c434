#include "core/reference/layout.h"

#include <cstddef>
#include <string>

#include "core/util/error.h"

namespace moe {
namespace {

std::string got(std::int64_t v) {
  return ", got " + std::to_string(v);
}

}  // namespace

int layoutServers(int numRanks, int ranksPerServer) {
  return numRanks > ranksPerServer ? numRanks / ranksPerServer : 1;
}

void validateLayout(const LayoutArgs& a) {
  require(a.numTokens >= 0 && a.numTokens <= kLayoutMaxTokens, "topk_idx",
          "number of tokens (rows) must be in [0, " + std::to_string(kLayoutMaxTokens) + "]" +
              got(a.numTokens));
  require(
      a.numTopk >= 0 && a.numTopk <= kLayoutMaxTopk, "topk_idx",
      "num_topk (columns) must be in [0, " + std::to_string(kLayoutMaxTopk) + "]" + got(a.numTopk));
  require(a.topkIdx.size() == std::size_t(a.numTokens) * a.numTopk, "topk_idx",
          "must hold num_tokens*num_topk = " + std::to_string(a.numTokens * a.numTopk) + " ids" +
              got(std::int64_t(a.topkIdx.size())));
  require(a.numRanks >= 1 && a.numRanks <= kLayoutMaxRanks, "num_ranks",
          "must be in [1, " + std::to_string(kLayoutMaxRanks) + "]" + got(a.numRanks));
  require(a.numExperts >= 1 && a.numExperts <= kLayoutMaxExperts, "num_experts",
          "must be in [1, " + std::to_string(kLayoutMaxExperts) + "]" + got(a.numExperts));
  // Experts are spread evenly: rank r holds experts [r*E/R, (r+1)*E/R).
  require(
      a.numExperts % a.numRanks == 0, "num_experts",
      "must be a multiple of num_ranks (" + std::to_string(a.numRanks) + ")" + got(a.numExperts));
  require(a.ranksPerServer >= 1 && a.ranksPerServer <= kLayoutMaxRanks, "ranks_per_server",
          "must be in [1, " + std::to_string(kLayoutMaxRanks) + "]" + got(a.ranksPerServer));
  // Seed 003 line 55: with more than one server, servers must be whole.
  require(a.numRanks <= a.ranksPerServer || a.numRanks % a.ranksPerServer == 0, "ranks_per_server",
          "num_ranks (" + std::to_string(a.numRanks) +
              ") must be a multiple of ranks_per_server when it spans several servers" +
              got(a.ranksPerServer));
  for (int t = 0; t < a.numTokens; ++t) {
    for (int j = 0; j < a.numTopk; ++j) {
      const int32_t e = a.topkIdx[std::size_t(t) * a.numTopk + j];
      require(e < a.numExperts, "topk_idx[" + std::to_string(t) + "][" + std::to_string(j) + "]",
              "expert id must be < num_experts (" + std::to_string(a.numExperts) +
                  "); negative ids mean skip" + got(e));
    }
  }
}

LayoutResult layoutReference(const LayoutArgs& a) {
  validateLayout(a);
  const int R = a.numRanks;
  const int servers = layoutServers(R, a.ranksPerServer);
  const int expertsPerRank = a.numExperts / R;

  LayoutResult out;
  out.numTokensPerRank.assign(std::size_t(R), 0);
  out.numTokensPerRdmaRank.assign(std::size_t(servers), 0);
  out.numTokensPerExpert.assign(std::size_t(a.numExperts), 0);
  out.isTokenInRank.assign(std::size_t(a.numTokens) * R, 0);

  std::vector<uint8_t> inServer(static_cast<std::size_t>(servers), 0);
  for (int t = 0; t < a.numTokens; ++t) {
    uint8_t* inRank = &out.isTokenInRank[std::size_t(t) * R];
    inServer.assign(std::size_t(servers), 0);
    for (int j = 0; j < a.numTopk; ++j) {
      const int32_t e = a.topkIdx[std::size_t(t) * a.numTopk + j];
      if (e < 0) continue;  // pruned or padded slot
      // Like DeepEP, the per-expert count is per occurrence; only rank/server counts are
      // deduplicated per token.
      ++out.numTokensPerExpert[std::size_t(e)];
      const int rank = e / expertsPerRank;
      inRank[rank] = 1;
      // With a single server every rank is below ranksPerServer, so this is server 0.
      inServer[std::size_t(rank / a.ranksPerServer)] = 1;
    }
    for (int r = 0; r < R; ++r) out.numTokensPerRank[std::size_t(r)] += inRank[r];
    for (int s = 0; s < servers; ++s)
      out.numTokensPerRdmaRank[std::size_t(s)] += inServer[std::size_t(s)];
  }
  return out;
}

}  // namespace moe
