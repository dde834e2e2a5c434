#pragma once
// Every design the product emulates, by identity: its enum value, its name, its workload and
// the few properties the layers below the run need (the scenario's dispatch_impl, the real
// operators' communication algorithm, where faults can be planted). One row per design, low
// enough that core/scenario and core/plan read it. The rows are X-macro lists (below), so
// a row is all the registration a design needs: core/kernels/kernels.h declares each
// MoE-layer design's two launchers from them, and the design registry (core/run) declares
// and lists each design's entry (stages, kernels, knobs, memory rule), which lives in the
// design's own file, core/run/designs/<name>.cpp (docs/ARCHITECTURE.md, "How to add a design").
//
// The MoE layer runs its dispatch and combine phased (SyncAll-separated full buffers),
// streaming (ring buffers with sender, forwarder and receiver cores) or flat (every row
// straight to its destination rank, no forwarder); the fused AlltoAll-Matmul-ReduceScatter
// runs either the pipelined kernel or the sequential baseline.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moe {

// Which workload `moe-sim run` emulates. The MoE layer is the default; the fused
// AlltoAll-Matmul-ReduceScatter operator (DESIGN.md §3.6) is a separate workload on the same
// machine. Its shape rules (divisibility, L1/L0/UB fit) live with the operator, in
// core/reference/a2a_matmul_rs.h, because they need the hardware profile.
enum class WorkloadKind { MoeLayer, AlltoallMatmulRs };

// One enum, so no front end encodes a design in an int. Flat is last so the values of the
// others stay as they were (the workbench keeps a design in its combo's item data); a new
// design's enumerator goes at the end too, and its row in the table below.
enum class Design { Phased, Streaming, Pipelined, Sequential, Flat };

struct DesignInfo {
  Design design;
  WorkloadKind workload;
  std::string_view name;  // "streaming": the CLI, the scenario JSON, sweep rows, the GUI
  // The design a front end shows first for its workload (the one the product is about).
  bool preferred = false;
  // The A2 communication algorithm (HCCL commAlg) of the real CANN operators the design
  // corresponds to: "hierarchy" (RDMA to the peer server, then forward) or "fullmesh";
  // empty when no CANN operator corresponds to it.
  std::string_view commAlg = {};
  // Runs the streaming combine, where `--fault` plants its faults (a lost tail publish, a
  // hung forwarder).
  bool streamingCombine = false;
  // A few words a list of choices adds after the name ("full-mesh, no forwarder"); empty
  // when the name says enough.
  std::string_view choiceNote = {};
};

// The design table, one row per design in report order: the MoE layer's designs, then the
// fused operator's. A row is ROW(Enumerator, fields...): the design's `Design` enumerator,
// then its DesignInfo fields from `name` on (the list a row is in gives its workload). A
// list is expanded by passing it a macro that takes one row, as kDesigns does below.
// clang-format off
#define MOE_LAYER_DESIGNS(ROW)                                                                 \
  ROW(Phased, .name = "phased", .commAlg = "hierarchy")                                        \
  ROW(Streaming, .name = "streaming", .preferred = true, .commAlg = "hierarchy",               \
      .streamingCombine = true)                                                                \
  ROW(Flat, .name = "flat", .commAlg = "fullmesh", .choiceNote = "full-mesh, no forwarder")
#define MOE_FUSED_OPERATOR_DESIGNS(ROW)                                                        \
  ROW(Pipelined, .name = "pipelined", .preferred = true)                                       \
  ROW(Sequential, .name = "sequential")
// clang-format on
// Every row, in report order.
#define MOE_DESIGNS(ROW) MOE_LAYER_DESIGNS(ROW) MOE_FUSED_OPERATOR_DESIGNS(ROW)

#define MOE_LAYER_DESIGN_INFO(id, ...) \
  {.design = Design::id, .workload = WorkloadKind::MoeLayer, __VA_ARGS__},
#define MOE_FUSED_OPERATOR_DESIGN_INFO(id, ...) \
  {.design = Design::id, .workload = WorkloadKind::AlltoallMatmulRs, __VA_ARGS__},
// In report order: the MoE layer's designs, then the fused operator's.
inline constexpr DesignInfo kDesigns[] = {
    MOE_LAYER_DESIGNS(MOE_LAYER_DESIGN_INFO)  //
    MOE_FUSED_OPERATOR_DESIGNS(MOE_FUSED_OPERATOR_DESIGN_INFO)};
#undef MOE_LAYER_DESIGN_INFO
#undef MOE_FUSED_OPERATOR_DESIGN_INFO

const DesignInfo& designInfo(Design d);
// "phased", "streaming", "pipelined", "sequential", "flat".
std::string_view designName(Design d);
std::optional<Design> designFromName(std::string_view name);
// The workload a design belongs to.
WorkloadKind workloadOf(Design d);
// The designs of a workload, in report order: phased, streaming, flat; pipelined, sequential.
std::vector<Design> designsOf(WorkloadKind w);
// The design a front end shows first: streaming for the MoE layer, pipelined for the fused
// operator.
Design defaultDesign(WorkloadKind w);
// The MoE layer's designs that run the streaming combine (where faults are planted), or with
// `runIt` false those that do not, in report order.
std::vector<Design> streamingCombineDesigns(bool runIt = true);

// Names as a sentence lists them: "a", "a and b", "a, b and c" (conjunction "and" or "or").
std::string nameList(const std::vector<std::string>& names, std::string_view conjunction);
std::vector<std::string> designNames(const std::vector<Design>& designs);

// The MoE layer's design choice of a scenario (dispatch_impl): one of its designs, or a
// named set of them. A set expands to its designs in report order.
class DesignSelection {
 public:
  // One design alone.
  constexpr DesignSelection(Design d) : design_(d) {}  // NOLINT: a design is a selection
  // "both": phased, then streaming (the two hierarchical designs).
  static DesignSelection both();
  // "all": every design of the MoE layer.
  static DesignSelection all();

  // A selection's spelling: "phased", "streaming", "flat", "both", "all"; nothing for any
  // other word (the fused operator's designs are not a dispatch_impl).
  static std::optional<DesignSelection> fromName(std::string_view name);
  std::string_view name() const;
  // The designs it runs, in report order.
  std::vector<Design> designs() const;
  // The design it names alone, if it names one.
  std::optional<Design> single() const;

  bool operator==(const DesignSelection&) const = default;

 private:
  // The named set at `set` (an index into the sets).
  static DesignSelection ofSet(int set);
  Design design_ = Design::Phased;
  int set_ = -1;  // index into the named sets, or -1 for design_ alone
};

// Every spelling of dispatch_impl, in the order listings show them: the MoE layer's designs
// in report order, then the sets.
std::vector<std::string> designSelectionSpellings();
// The choices as a help text reads them: "streaming, phased, flat (full-mesh, no
// forwarder), both (phased and streaming) or all" (the preferred design first).
std::string designSelectionHelp();

}  // namespace moe
