#pragma once
// `moe-sim op dispatch` and `moe-sim op combine`: the collective operators on explicit inputs
// of every rank, so one small case can be checked without a whole scenario. Argument names
// are MoeDistributeDispatch's and MoeDistributeCombine's (as export-vectors writes them);
// bf16 values are JSON numbers, rounded to bf16 on input and exact on output.
//
//  dispatch: in  local_expert_num, ranks[r] = {x [[num]] BSxH, expert_ids [[int]] BSxK
//                (instances, in [0, ranks*local_expert_num)), expert_scales [[num]] BSxK,
//                optional x_active_mask [[bool]] BSxK (false = not sent)};
//            out ranks[d] = {expand_x [[num]] AxH, expand_scales [num] A, expand_idx [[int]]
//                Ax3 (source rank, source token, k slot), expert_token_nums [int]
//                local_expert_num (counts), ep_recv_counts [[int]] local_expert_num x ranks
//                (counts)}; rows by local expert, then source rank, then token.
//  combine:  in  ranks[d] = {expand_x [[num]] A_dxH (expert outputs), expand_idx [[int]]
//                A_dx3 (as dispatch wrote it), expert_scales [[num]] BSxK, optional
//                shared_expert_x [[num]] BSxH};
//            out ranks[s] = {x [[num]] BSxH} = bf16(sum over k, in k order, in fp32, of
//                expert_scales[t,k] * row(s,t,k), + shared_expert_x).
// Every input error is an InputError naming the field path ("ranks[1].expert_ids[0][2]").

#include <nlohmann/json.hpp>

namespace moe {

nlohmann::json dispatchOpJson(const nlohmann::json& input);
nlohmann::json combineOpJson(const nlohmann::json& input);

}  // namespace moe
