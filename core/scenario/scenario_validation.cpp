// validateScenario: every cross-field rule of a scenario, section by section, each
// failure an InputError naming the field path and the rule (docs/SCENARIO.md).

#include <string>

#include "core/scenario/scenario_enums.h"
#include "core/scenario/scenario_json.h"
#include "core/scenario/scenario_limits.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"

namespace moe {

namespace {

namespace jf = moe::jsonf;

template <typename T>
std::string str(T v) {
  return std::to_string(v);
}

// The cluster against the hardware profile.
void validateCluster(const Scenario& s) {
  const HardwareProfile& hw = s.hardware;
  const int ranks = s.cluster.ranks();
  // Cluster.
  require(s.cluster.cardsPerServer == hw.cardsPerServer, "cluster.cards_per_server",
          "must equal the hardware profile's cards_per_server (" + str(hw.cardsPerServer) +
              "), got " + str(s.cluster.cardsPerServer));
  require(s.cluster.servers >= 1 && s.cluster.servers <= 96, "cluster.servers",
          "must be in [1, 96], got " + str(s.cluster.servers));
  require(ranks >= 2 && ranks <= kMaxRanks, "cluster.servers",
          "servers x cards_per_server = " + str(ranks) + " ranks must be in [2, 768]");
}

// The per-field ranges again (a Scenario built in code is held to them too), the
// dtype rules and the size guard.
void validateModel(const Scenario& s) {
  const int ranks = s.cluster.ranks();
  const ModelShape& m = s.model;
  // Model (the per-field ranges again, so a Scenario built in code is held to them too).
  require(m.tokensPerRank >= 1 && m.tokensPerRank <= kMaxTokensPerRank, "model.tokens_per_rank",
          "must be in [1, " + str(kMaxTokensPerRank) + "], got " + str(m.tokensPerRank));
  require(m.hidden >= 1 && m.hidden <= 16384, "model.hidden",
          "must be in [1, 16384], got " + str(m.hidden));
  require(m.experts >= 1 && m.experts <= 1024, "model.experts",
          "must be in [1, 1024], got " + str(m.experts));
  require(m.intermediate >= 1 && m.intermediate <= 65536, "model.intermediate",
          "must be in [1, 65536], got " + str(m.intermediate));
  require(m.topk >= 1 && m.topk <= 16, "model.topk", "must be in [1, 16], got " + str(m.topk));
  // FP8 rows carry one scale per 128-element block (DeepEP's per-token-per-128 scaling).
  require(m.dispatchDtype != DispatchDtype::Fp8 || m.hidden % 128 == 0, "model.dispatch_dtype",
          "fp8 needs model.hidden to be a multiple of 128 (one scale per 128 elements), got " +
              str(m.hidden));
  require(m.topk <= m.experts, "model.topk",
          "must be <= model.experts (" + str(m.experts) + "), got " + str(m.topk));

  // Size guard: refuse, rather than try to allocate, token data that cannot fit.
  if (s.payload == PayloadMode::Full) {
    const std::uint64_t bytes =
        static_cast<std::uint64_t>(ranks) * static_cast<std::uint64_t>(m.tokensPerRank) *
        static_cast<std::uint64_t>(m.hidden) * 2u * static_cast<std::uint64_t>(1 + m.topk);
    require(bytes <= kMaxPayloadBytes, "model",
            "payload \"full\" needs ranks x tokens_per_rank x hidden x 2 B x (1 + topk) = " +
                str(bytes) + " bytes of token data, more than the 8 GiB limit; shrink the model " +
                "or use payload \"none\"");
  }
}

// The EPLB table, replicas, pruning and active tokens against the model.
void validateEplb(const Scenario& s) {
  const int ranks = s.cluster.ranks();
  const ModelShape& m = s.model;
  // EPLB.
  const EplbConfig& e = s.eplb;
  require(e.balanceMode == 0 || e.balanceMode == 1, "eplb.balance_mode",
          "must be 0 (by rank) or 1 (by token), got " + str(e.balanceMode));
  require(e.redundantExperts >= 0 && m.experts + e.redundantExperts <= kMaxPhysicalExperts,
          "eplb.redundant_experts",
          "model.experts + redundant_experts must be <= 1024, got " +
              str(m.experts + e.redundantExperts));
  if (e.placePerRank == 0 && e.redundantExperts == 0) {
    require(m.experts % ranks == 0, "model.experts",
            "must be divisible by the rank count (" + str(ranks) + ") when eplb.place_per_rank " +
                "is 0, got " + str(m.experts));
  } else if (e.placePerRank == 0) {
    require((m.experts + e.redundantExperts) % ranks == 0, "eplb.redundant_experts",
            "model.experts + redundant_experts (" + str(m.experts + e.redundantExperts) +
                ") must be divisible by the rank count (" + str(ranks) + ")");
  } else {
    require(e.placePerRank > 0, "eplb.place_per_rank", "must be >= 0");
    const std::int64_t instances = std::int64_t{e.placePerRank} * ranks;
    require(instances <= kMaxPhysicalExperts, "eplb.place_per_rank",
            "place_per_rank x ranks = " + str(instances) + " must be <= 1024");
    require(instances >= m.experts, "eplb.place_per_rank",
            "place_per_rank x ranks = " + str(instances) + " must be >= model.experts (" +
                str(m.experts) + ")");
  }
  if (e.placePerRank > 0 && e.redundantExperts > 0)
    require(std::int64_t{e.placePerRank} * ranks == m.experts + e.redundantExperts,
            "eplb.place_per_rank",
            "must be 0 or (model.experts + redundant_experts) / ranks = " +
                str((m.experts + e.redundantExperts) / ranks) + " with redundant_experts set");
  if (e.tableFrom != EplbTableSource::Explicit) {
    require(e.table.empty(), "eplb.table",
            "must be empty when table_from is \"" + enumName(kTableSourceNames, e.tableFrom) +
                "\" (the table is generated)");
    require(
        m.experts % e.groups == 0, "eplb.groups",
        "model.experts (" + str(m.experts) + ") must be divisible by groups, got " + str(e.groups));
  } else if (e.redundantExperts > 0) {
    require(!e.table.empty(), "eplb.table_from",
            "redundant_experts needs a table: set table_from to \"expected-load\" or \"warm-up\", "
            "or give "
            "eplb.table");
  }
  if (!e.table.empty()) {
    require(static_cast<int>(e.table.size()) == m.experts, "eplb.table",
            "must have model.experts (" + str(m.experts) + ") rows, got " + str(e.table.size()));
    const std::size_t cols = e.table[0].size();
    for (std::size_t r = 1; r < e.table.size(); ++r)
      require(e.table[r].size() == cols, jf::index("eplb.table", r),
              "must have as many elements as row 0");
    require(cols >= 2 && cols <= static_cast<std::size_t>(ranks) + 1, "eplb.table[0]",
            "row length must be in [2, ranks + 1 = " + str(ranks + 1) + "], got " + str(cols));
  }
  require(e.pruningThreshold.empty() || static_cast<int>(e.pruningThreshold.size()) == m.topk,
          "eplb.pruning_threshold",
          "must be empty or have model.topk (" + str(m.topk) + ") entries, got " +
              str(e.pruningThreshold.size()));
  for (std::size_t i = 0; i < e.pruningThreshold.size(); ++i) {
    const float t = e.pruningThreshold[i];
    require(t >= 0.0f && t <= 1.0f, jf::index("eplb.pruning_threshold", i), "must be in [0, 1]");
  }
  require(e.activeTokens == -1 || (e.activeTokens >= 0 && e.activeTokens <= m.tokensPerRank),
          "eplb.active_tokens",
          "must be -1 (all active) or in [0, model.tokens_per_rank = " + str(m.tokensPerRank) +
              "], got " + str(e.activeTokens));
  // MoeUpdateExpert's active mask only says which tokens pruning may drop; without a
  // threshold it would change nothing, silently (`op update-expert` refuses the same).
  require(e.activeTokens == -1 || !e.pruningThreshold.empty(), "eplb.active_tokens",
          "requires eplb.pruning_threshold: the active tokens only decide which tokens pruning "
          "applies to; set eplb.pruning_threshold or leave eplb.active_tokens at -1");
}

// Each routing distribution's parameters against the model.
void validateRouting(const Scenario& s) {
  const ModelShape& m = s.model;
  // Routing: each distribution's parameters against the model.
  const RoutingConfig& r = s.routing;
  require(r.alpha >= 0.0 && r.alpha <= 10.0, "routing.alpha", "must be in [0, 10]");
  require(r.hotspotFraction >= 0.0 && r.hotspotFraction <= 1.0, "routing.hotspot_fraction",
          "must be in [0, 1]");
  switch (r.kind) {
    case RoutingKind::Hotspot:
      require(
          r.hotspotExperts >= 1 && r.hotspotExperts <= m.experts, "routing.hotspot_experts",
          "must be in [1, model.experts = " + str(m.experts) + "], got " + str(r.hotspotExperts));
      break;
    case RoutingKind::GroupLimited:
      require(r.groups >= 1 && m.experts % r.groups == 0, "routing.groups",
              "must divide model.experts (" + str(m.experts) + "), got " + str(r.groups));
      require(r.topkGroups >= 1 && r.topkGroups <= r.groups, "routing.topk_groups",
              "must be in [1, routing.groups = " + str(r.groups) + "], got " + str(r.topkGroups));
      require(m.topk <= r.topkGroups * (m.experts / r.groups), "model.topk",
              "must be <= topk_groups x experts per group = " +
                  str(r.topkGroups * (m.experts / r.groups)) + " for group-limited routing");
      break;
    case RoutingKind::Trace:
      require(!r.traceFile.empty(), "routing.trace_file",
              "must name a CSV or .npy file when distribution is \"trace\"");
      break;
    case RoutingKind::Uniform:
    case RoutingKind::PowerLaw:
      break;
  }
}

// The ring tiling, the core split, the combine knobs, the event log and the fused
// workload's ranges.
void validateRingsAndKnobs(const Scenario& s) {
  const HardwareProfile& hw = s.hardware;
  // Rings and the core split, per stage; named as the scenario's JSON writes them (flat
  // when both stages share one tiling).
  for (auto [stage, tp] :
       {std::pair{"dispatch", &s.rings.dispatch}, std::pair{"combine", &s.rings.combine}}) {
    const RingTiling& t = *tp;
    const std::string p = s.rings.same() ? "rings" : std::string("rings.") + stage;
    require(t.chunkBytes >= 32 && t.chunkBytes <= kMaxChunkBytes && t.chunkBytes % 32 == 0,
            p + ".chunk_bytes",
            "must be a multiple of 32 in [32, 67108864], got " + str(t.chunkBytes));
    require(t.queueChunks >= 1 && t.queueChunks <= 4096, p + ".queue_chunks",
            "must be in [1, 4096], got " + str(t.queueChunks));
    require(t.senderCores >= 1, p + ".sender_cores", "must be >= 1");
    require(t.forwarderCores >= 1, p + ".forwarder_cores", "must be >= 1");
    require(t.receiverCores >= 1, p + ".receiver_cores", "must be >= 1");
    const int roleCores = t.senderCores + t.forwarderCores + t.receiverCores;
    require(roleCores <= hw.aivCores, p,
            "sender_cores + forwarder_cores + receiver_cores = " + str(roleCores) +
                " must be <= the profile's aiv_cores (" + str(hw.aivCores) + ")");
  }

  // Streaming combine knobs: the ranges here; the UB window's fit is checked with the ring
  // tiling (validateDispatchTiling in core/plan), which knows the record sizes. A batch is
  // "up to" its bytes: whole partials, at least one, at most a ring's capacity.
  const CombineConfig& cc = s.combine;
  require(cc.rdmaBatchBytes >= 0 && cc.rdmaBatchBytes <= kMaxChunkBytes, "combine.rdma_batch_bytes",
          "must be 0 (one post per partial) or a byte count <= 67108864, got " +
              str(cc.rdmaBatchBytes));
  require(cc.ubWindowRows >= 0 && cc.ubWindowRows <= 4096, "combine.ub_window_rows",
          "must be 0 (sized from the UB budget) or in [1, 4096], got " + str(cc.ubWindowRows));

  require(s.eventLogCapacity >= 1024 && s.eventLogCapacity <= (std::int64_t{1} << 26),
          "event_log_capacity", "must be in [1024, 67108864], got " + str(s.eventLogCapacity));

  // Workload: the per-field ranges only; the shape rules need the operator (see scenario.h).
  const WorkloadConfig& w = s.workload;
  require(w.ranks >= 2 && w.ranks <= kMaxRanks, "workload.ranks",
          "must be in [2, 768], got " + str(w.ranks));
  require(w.stages >= 1 && w.stages <= 8, "workload.stages",
          "must be in [1, 8], got " + str(w.stages));
}

}  // namespace

void validateScenario(const Scenario& s) {
  validateCluster(s);
  validateModel(s);
  validateEplb(s);
  validateRouting(s);
  validateRingsAndKnobs(s);
}

}  // namespace moe
