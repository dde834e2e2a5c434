#pragma once
// Which design of its workload a run emulates. The MoE layer runs its dispatch and combine
// phased (SyncAll-separated full buffers), streaming (ring buffers with sender, forwarder
// and receiver cores) or flat (every row straight to its destination rank, no forwarder); the fused
// AlltoAll-Matmul-ReduceScatter runs either the pipelined kernel or the sequential baseline. One
// enum, so no front end encodes a design in an int.

#include <optional>
#include <string_view>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe {

// Flat (full-mesh: every row straight to its destination rank, no forwarder) is last so
// the values of the others stay as they were.
enum class Design { Phased, Streaming, Pipelined, Sequential, Flat };

// "phased", "streaming", "pipelined", "sequential", "flat".
std::string_view designName(Design d);
std::optional<Design> designFromName(std::string_view name);

// The workload a design belongs to.
WorkloadKind workloadOf(Design d);
// The designs of a workload, in report order: phased, streaming, flat; pipelined, sequential.
std::vector<Design> designsOf(WorkloadKind w);
// The design a front end shows first: streaming for the MoE layer, pipelined for the fused
// operator (the designs the product is about).
Design defaultDesign(WorkloadKind w);
// The designs `moe-sim run` emulates for a scenario: the MoE layer's dispatch_impl (both:
// phased, then streaming; all: those, then flat), or both kernels of the fused operator.
std::vector<Design> scenarioDesigns(const Scenario& sc);

}  // namespace moe
