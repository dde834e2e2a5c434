#pragma once
// The gating workload (DESIGN.md §3.0): a seeded generator of each rank's activations and router
// output, the input of the whole pipeline. It is a pure function of the Scenario, so a run,
// its test vectors and its golden references can always be regenerated from the seed.
//
// Random streams (all from core/util/rng.h, never std:: distributions, so that every platform
// produces the same tokens):
//   - expert popularity (the seeded permutation of power-law / hotspot) comes from
//     Rng(Rng::derive(seed, kPopularityStream)): it is a property of the model, shared by all
//     ranks;
//   - rank r draws from Rng(Rng::derive(seed, r)): first the routing of all its tokens, then
//     x. Ranks are therefore independent of one another and of the cluster size, and the
//     routing is the same whether or not the payload (x) is generated.
//
// Routing is Gumbel-top-k: score_e = log(p_e) + Gumbel(0,1), the K highest scores win. That
// samples K distinct experts without replacement in proportion to p, so an expert receives at
// most one slot per token however popular it is.

#include <cstdint>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe {

// Stream label of the expert-popularity permutation; above any rank index, so it can never
// coincide with a rank's stream.
inline constexpr std::uint64_t kPopularityStream = 0x706f70756c6172ull;

struct RankGating {
  std::vector<std::uint16_t> x;       // [BS*H] bf16 bit patterns; empty when payload is none
  std::vector<std::int32_t> topkIds;  // [BS*K] logical experts, distinct within a token
  std::vector<float> topkWeights;     // [BS*K] softmax over the chosen scores, descending
};

// Generates every rank's gating output (scenario.cluster.ranks() entries).
// Routing by scenario.routing.kind:
//   uniform        all experts equally likely;
//   power-law      p ∝ (i+1)^-alpha for the expert at position i of a seeded permutation;
//   hotspot        the first hotspot_experts of a seeded permutation share hotspot_fraction of
//                  the mass evenly, the rest share 1 - hotspot_fraction evenly;
//   group-limited  uniform popularity; experts form `groups` contiguous groups, a token keeps
//                  the topk_groups groups with the highest max score (ties -> lower group),
//                  then takes its top K experts inside them;
//   trace          ids from routing.trace_file (CSV, one token per line, or .npy int32/int64
//                  [R*BS, K] or [R, BS, K]); global token t = r*BS + i uses row t. A trace
//                  with fewer than R*BS rows is refused; surplus rows are unused by the
//                  run. Weights: K seeded normal scores, softmaxed and sorted descending,
//                  assigned in file order.
// Ties between scores go to the lower expert id. Weights are computed in fp32.
// Throws InputError naming the offending field (e.g. "routing.groups", and
// "routing.trace_file" for every trace problem, with the line or row number).
std::vector<RankGating> generateGating(const Scenario& scenario);

// For trace routing, reads routing.trace_file and checks it as generateGating would (a
// regular readable file, CSV or int32/int64 .npy of the right shape, ids in range and
// distinct per token, at least R*BS rows); nothing for the generated distributions. Throws
// the same InputError generateGating would, so a check and a run agree.
void checkRoutingTrace(const Scenario& scenario);

// Normalised popularity p_e of each logical expert (sums to 1) for uniform, power-law,
// hotspot and group-limited routing. Throws InputError for trace routing, which has none.
std::vector<double> expertPopularity(const Scenario& scenario);

// Expected share of token slots that each logical expert receives; sums to 1 (multiply by
// R*BS*K for an expected slot count). Exact when all experts are equally popular (uniform,
// group-limited, alpha 0, hotspot over all experts); otherwise a Monte Carlo estimate of the
// generator's own selection with 20000 tokens and a fixed internal seed, because sampling
// without replacement flattens p in a way with no closed form. For trace routing it counts
// the rows the scenario's tokens use (the whole file if there are no tokens).
std::vector<double> expectedExpertLoad(const Scenario& scenario);

// Token slots per logical expert in one warm-up batch: a batch of the same shape as the run's
// (R*BS tokens) routed with the same popularity, but from its own random stream (rank r
// draws from Rng(Rng::derive(seed, kWarmupStream + r))), so it observes the distribution
// without seeing the run's own tokens. Trace routing uses the R*BS rows that follow the
// run's rows (wrapping). Sums to R*BS*K.
inline constexpr std::uint64_t kWarmupStream = 0x7761726d7570ull << 16;
std::vector<double> warmupExpertLoad(const Scenario& scenario);

}  // namespace moe
