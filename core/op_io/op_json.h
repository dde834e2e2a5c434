#pragma once
// `moe-sim op NAME --input CASE.json`: one operator's golden reference on explicit inputs.
// Input and output are JSON so that kernel engineers can hand-write a case and diff the
// answer. Every input error is a moe::InputError naming the field path.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace moe {

// Names runOpJson accepts, in the order they are listed to the user.
const std::vector<std::string>& opNames();

// Runs the named operator on `input` and returns its outputs. Throws moe::InputError for an
// unknown name (path "op"), unknown or mistyped input keys, and every operator rule.
//  update-expert: in  expert_ids [[int]], eplb_table [[int]], local_rank_id, world_size,
//                     balance_mode, optional expert_scales [[float]], pruning_threshold
//                     [float] or [[float]] (K or 1 x K), active_mask [bool];
//                     expert_ids may be {"dtype": "int32"|"int64", "data": ...} and
//                     expert_scales {"dtype": "float32"|"float16"|"bfloat16", "data": ...}.
//                     The real operator's rules apply (UpdateExpertRules::RealOperator):
//                     inputs it accepts but the pipeline could not use are warnings;
//                 out balanced_expert_ids [[int]], balanced_active_mask [[bool]] (only with
//                     pruning inputs), place_per_rank (only for a table the pipeline could
//                     use).
//  layout:        in  topk_idx [[int]] (negative = skip), num_ranks, num_experts,
//                     ranks_per_server;
//                 out num_tokens_per_rank, num_tokens_per_rdma_rank, num_tokens_per_expert,
//                     is_token_in_rank [[bool]].
//  eplb:          in  weight [[number]] (layers x logical experts), num_replicas, num_groups,
//                     num_nodes, num_gpus, optional max_replicas (0 = no cap);
//                 out phy2log [[int]], log2phy [[[int]]] (-1 padded), logcnt [[int]].
struct OpOptions {
  bool strict = false;                      // warnings become InputErrors (exit 2)
  std::vector<std::string>* warnings = {};  // "PATH: RULE" per warning, when not strict
};
nlohmann::json runOpJson(const std::string& name, const nlohmann::json& input,
                         const OpOptions& options = {});

}  // namespace moe
