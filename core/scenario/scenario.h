#pragma once
// A scenario: everything one run needs. It is plain data with defaults everywhere; the
// default-constructed Scenario is the built-in default scenario of SPEC §6.
// JSON mapping, validation and the schema are in scenario_json.{h,cpp} and docs/SCENARIO.md.

#include <cstdint>
#include <string>
#include <vector>

#include "core/machine/hardware_profile.h"

namespace moe {

enum class RoutingKind { Uniform, PowerLaw, Hotspot, GroupLimited, Trace };
enum class PayloadMode { Full, None };
enum class DispatchImpl { Phased, Streaming, Both };

struct ClusterShape {
  int servers = 2;
  int cardsPerServer = 8;  // must equal the profile's cardsPerServer
  int ranks() const { return servers * cardsPerServer; }
  bool operator==(const ClusterShape&) const = default;
};

struct ModelShape {
  int tokensPerRank = 128;  // BS
  int hidden = 7168;        // H
  int experts = 64;         // logical experts E
  int topk = 8;             // K
  int intermediate = 2048;  // SwiGLU intermediate size I, for expert timing only
  bool operator==(const ModelShape&) const = default;
};

struct RoutingConfig {
  RoutingKind kind = RoutingKind::PowerLaw;
  double alpha = 1.2;             // power-law exponent
  double hotspotFraction = 0.5;   // share of routing mass on the hot experts
  int hotspotExperts = 2;         // how many hot experts
  int groups = 8;                 // group-limited: expert groups
  int topkGroups = 4;             // group-limited: groups a token may use
  std::string traceFile;          // trace: CSV or .npy of expert ids
  bool operator==(const RoutingConfig&) const = default;
};

struct EplbConfig {
  // Physical instances per rank; 0 means experts / ranks (no redundancy).
  int placePerRank = 0;
  int balanceMode = 0;  // 0: by rank, 1: by token
  // Explicit eplb_table rows [count, inst_1..inst_count, padding]; empty = identity mapping
  // (logical expert e -> instance e).
  std::vector<std::vector<int>> table;
  // Pruning threshold per k slot; empty = no pruning.
  std::vector<float> pruningThreshold;
  // Number of active tokens per rank (the rest are masked off); -1 = all active.
  int activeTokens = -1;
  bool operator==(const EplbConfig&) const = default;
};

struct RingTiling {
  std::int64_t chunkBytes = 65536;  // one ring chunk
  int queueChunks = 8;              // ring capacity = queueChunks * chunkBytes
  int senderCores = 8;
  int forwarderCores = 8;
  int receiverCores = 8;
  bool operator==(const RingTiling&) const = default;
};

struct CombineConfig {
  bool sharedExpert = false;  // add a shared expert's output to every token (SPEC §3.5)
  bool addRmsNorm = false;    // CombineAddRmsNorm: residual add + RMSNorm fused (SPEC §3.5c)
  double rmsEps = 1e-6;
  bool operator==(const CombineConfig&) const = default;
};

// Which workload `moe-sim run` emulates. The MoE layer is the default; the fused
// AlltoAll-Matmul-ReduceScatter operator (SPEC §3.6) is a separate workload on the same
// machine. Its shape rules (divisibility, L1/L0/UB fit) live with the operator, in
// core/ops/a2a_matmul_rs.h, because they need the hardware profile.
enum class WorkloadKind { MoeLayer, AlltoallMatmulRs };

struct WorkloadConfig {
  WorkloadKind kind = WorkloadKind::MoeLayer;
  // AlltoAll-Matmul-ReduceScatter: global A[m, k] x W[k, n] over `ranks` cards (one server
  // of 8 by default, so the cluster section is not needed). Defaults chosen so compute and
  // communication are of the same order on the 910B3 profile, where pipelining pays.
  int ranks = 8;
  int m = 512;
  int n = 768;
  int k = 4096;
  int tileM = 32;
  int tileN = 128;
  int tileK = 128;
  int stages = 8;  // a2a and partial-sum workspace slots in flight (1..8)
  bool operator==(const WorkloadConfig&) const = default;
};

struct Scenario {
  std::string name = "default";
  std::uint64_t seed = 1;
  std::string profileName = "ascend-910b3";
  HardwareProfile hardware;  // the profile with the scenario's overrides applied
  ClusterShape cluster;
  ModelShape model;
  RoutingConfig routing;
  EplbConfig eplb;
  RingTiling rings;
  CombineConfig combine;
  PayloadMode payload = PayloadMode::Full;
  DispatchImpl dispatchImpl = DispatchImpl::Both;
  // Upper bound on the observation event log (records); older records are dropped.
  std::int64_t eventLogCapacity = 1 << 20;
  WorkloadConfig workload;

  // Field by field, so a saved and reloaded scenario can be checked for exact equality.
  bool operator==(const Scenario&) const = default;

  int placePerRank() const {
    return eplb.placePerRank > 0 ? eplb.placePerRank : model.experts / cluster.ranks();
  }
};

}  // namespace moe
