#include "core/studies/vector_semantics.h"

namespace moe::vectors {

using nlohmann::json;

// The texts follow core/reference (update_expert.cpp, layout.cpp, dispatch_reference.cpp,
// combine_reference.cpp) and DESIGN.md §3.1 to §3.5; a change there changes them.
namespace {

// The combine's summation, shared by the plain and the AddRmsNorm combine.
constexpr const char* kCombineSum =
    "acc is an fp32 accumulator starting at +0.0; for k = 0 .. K-1 in ascending order, "
    "skipping slots not sent (x_active_mask false): acc = acc + fp32(expert_scales[t, k] * "
    "row(t, k)), the product rounded to fp32 before the add (no fused multiply-add); then, "
    "with a shared expert, acc = acc + shared_expert_x[t]; row(t, k) is slot (t, k)'s expert "
    "output row, on the rank that served it (expand_idx says which: encodings.expand_idx)";

json moeUpdateExpert() {
  return json{
      {"balanced_expert_ids",
       "slot (t, k): e = expert_ids[t, k], count = eplb_table[e, 0], "
       "balanced_expert_ids[t, k] = eplb_table[e, place] with place = 1 when count == 1, else "
       "by balance_mode"},
      {"balance_mode_0",
       "by rank: place = local_rank_id // ceil(world_size / count) + 1, with ceil(a / b) = "
       "(a + b - 1) // b in integers; floor differs whenever count does not divide world_size "
       "(4 ranks, count 3: ceil 2 gives places 1, 1, 2, 2; floor 1 gives 1, 2, 3, 4)"},
      {"balance_mode_1",
       "by token: place = t % count + 1, t the token's row in this call (0-based: the row "
       "index, not the flattened slot index t * K + k; place 1 is the first instance "
       "column)"},
      {"pruning",
       "sum_t = fp32 sum of expert_scales[t, 0 .. K-1] in ascending k, starting from +0.0; "
       "bound = fp32(pruning_threshold[k] * sum_t): each slot's own threshold times the "
       "token's total (not the sum over k of scale * threshold); keep(t, k) = "
       "expert_scales[t, k] >= bound: a scale exactly equal to its bound is kept, a slot is "
       "pruned only when strictly below"},
      {"active_mask",
       "[BS] bool, one flag per token (not per slot): the true entries come first (a prefix); "
       "a false token keeps an all-false row of balanced_active_mask whatever its scales"},
      {"balanced_active_mask",
       "[BS, K] bool, one flag per slot: active_mask[t] and keep(t, k); written only with "
       "pruning (expert_scales and pruning_threshold given)"},
      {"pruning_boundary_slots",
       "each operator record lists the (t, k) whose expert_scales equal their bound exactly "
       "(they are kept): the slots that tell >= from >"},
      {"slices",
       "BS <= 512 per call: a larger batch is one call per 512-token slice "
       "(moe_update_expert_slice<i>), each counting t from its own first token"},
      {"other_balance_mode",
       "moe_update_expert_balance_mode<m> holds the same inputs in the balance mode the layer "
       "does not run (only balance_mode and the goldens differ); the layer's dispatch uses "
       "moe_update_expert's outputs"}};
}

json getDispatchLayout() {
  return json{
      {"topk_idx",
       "int64 [BS, K] = moe_update_expert's balanced_expert_ids with -1 where its "
       "balanced_active_mask is false (pruned slots and every slot of an inactive token); "
       "ids are physical instances, not logical experts"},
      {"skipped", "ids < 0 count nowhere"},
      {"num_tokens_per_expert", "[num_experts]: slots whose id is that instance"},
      {"num_tokens_per_rank",
       "[num_ranks]: tokens with at least one slot on the rank, once per token however many "
       "of its slots go there; instance p lives on rank p // (num_experts / num_ranks)"},
      {"num_tokens_per_rdma_rank",
       "[num_ranks / ranks_per_server]: the same per server (ranks_per_server consecutive "
       "ranks)"},
      {"is_token_in_rank", "[BS, num_ranks] bool: the token has a slot on the rank"}};
}

json moeDistributeDispatch() {
  return json{
      {"expert_ids",
       "balanced_expert_ids unmasked: a pruned slot keeps its id and x_active_mask says it "
       "is not sent"},
      {"x_active_mask",
       "[BS, K] bool, one flag per slot = moe_update_expert's balanced_active_mask; slot "
       "(t, k) is sent iff true. Not moe_update_expert's per-token active_mask [BS]: a token "
       "with every slot false is not sent at all"},
      {"expand_x",
       "one row per received slot (a token sent to two local experts is two rows), ordered by "
       "local expert, then source rank, then source token"},
      {"expand_scales", "[A] fp32: the sending slot's expert_scales, per row"},
      {"ep_recv_counts",
       "[local_expert_num, ep_world_size]: rows of local expert le from rank src at [le, src] "
       "(per-entry counts or prefix sums: encodings.counts)"},
      {"global_bs", "ep_world_size * BS: every rank sends the same BS"}};
}

json moeDistributeCombine() {
  return json{
      {"x", "x[t] = bf16(acc), one rounding to nearest even"},
      {"summation_order", kCombineSum},
      {"expand_x",
       "the experts' outputs on the rows dispatch delivered: y = bf16(a_e * x + b_e) in fp32, a "
       "stand-in function of the logical expert e (every replica of e gives the same row)"},
      {"comparison",
       "the goldens sum in exactly this order; a kernel that sums in another order is "
       "compared within the record's stated tolerance"}};
}

json moeDistributeCombineAddRmsNorm() {
  return json{
      {"summation_order", kCombineSum},
      {"x", "x_out[t] = bf16(acc + residual_x[t]) (the add in fp32)"},
      {"rstd",
       "1 / sqrt(sum_h v_h^2 / H + norm_eps) in fp32, v = acc + residual_x before rounding, "
       "the squares summed in ascending h"},
      {"y", "bf16((v_h * rstd) * gamma_h): from the fp32 v, not from the rounded x_out"}};
}

json deviceApi() {
  return json{
      {"moe_expert_num",
       "ep_world_size * local_expert_num: the physical instances balanced_expert_ids index "
       "(eplb_table has one row per logical expert)"},
      {"global_bs", "BS * ep_world_size: every rank holds the same BS"},
      {"quant_mode",
       "dispatch: 0 none (bf16, and fp8, which is DeepEP's format and has no Ascend mode: see "
       "dispatch_dtype), 2 dynamic per-token int8; no smooth scales (the optional scales "
       "input is not written)"},
      {"tp_world_size", "1, tp_rank_id 0: the scenario has no tensor parallelism"},
      {"expert_shard_type", "0"},
      {"shared_expert_num",
       "0 and shared_expert_rank_num 0: no rank hosts a shared expert and the dispatch sends "
       "nothing to one; a shared expert's output enters the combine as shared_expert_x"},
      {"comm_quant_mode", "combine: 0, its rows cross as bf16"},
      {"out_dtype", "combine: 0, x in the dtype of the expert outputs (bf16)"},
      {"comm_alg",
       "hierarchy: A2's two-stage path (RDMA between servers to the card with the same local "
       "index, then HCCS)"}};
}

}  // namespace

json moeLayerSemantics() {
  json s = json::object();
  s["moe_update_expert"] = moeUpdateExpert();
  s["get_dispatch_layout"] = getDispatchLayout();
  s["moe_distribute_dispatch"] = moeDistributeDispatch();
  s["moe_distribute_combine"] = moeDistributeCombine();
  s["moe_distribute_combine_add_rms_norm"] = moeDistributeCombineAddRmsNorm();
  s["device_api"] = deviceApi();
  return s;
}

}  // namespace moe::vectors
