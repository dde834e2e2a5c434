#include "core/studies/layer_vector_export.h"

#include <algorithm>
#include <cstring>

#include "core/reference/combine_reference.h"
#include "core/reference/dispatch_quant.h"
#include "core/run/expert_balance.h"
#include "core/run/layer_args.h"
#include "core/run/reference_chain.h"
#include "core/scenario/scenario_enums.h"

namespace moe::vectors {

namespace {

using nlohmann::json;

// The MoE layer's operators, rank by rank, with the reference chain's outputs as goldens:
// MoeUpdateExpert (per 512-token slice), get_dispatch_layout, dispatch and combine.
class LayerExport {
 public:
  LayerExport(const ResolvedScenario& rs, const VectorExportOptions& o, Writer& w)
      : sc_(rs.scenario()),
        gating_(*rs.gating()),
        ref_(computeReference(rs)),
        o_(o),
        w_(w),
        R(sc_.cluster.ranks()),
        BS(sc_.model.tokensPerRank),
        K(sc_.model.topk),
        H(sc_.model.hidden),
        E(sc_.model.experts),
        S(sc_.cluster.servers),
        P(ref_.updateExpert.front().placePerRank),
        dtype_(sc_.model.dispatchDtype),
        quantized_(quantizedDispatch(dtype_)),
        full_(sc_.payload == PayloadMode::Full) {
    keep_.resize(sz(R));
    for (int r = 0; r < R; ++r)
      keep_[sz(r)] = ref_.updateExpert[sz(r)].balancedActiveMask.value_or(
          std::vector<std::uint8_t>(sz(BS * K), 1));
  }

  void run() {
    for (int r = 0; r < R; ++r) updateExpert(r);
    for (int r = 0; r < R; ++r) layout(r);
    slotRows();
    const std::vector<int> instanceLogical = instanceToLogical(sc_, R * P);
    for (int r = 0; r < R; ++r) {
      DispatchExport d = dispatch(r);
      if (full_) combine(r, d, instanceLogical);  // combine and the experts need the payload
    }
  }

 private:
  // What combine reuses of a rank's dispatch export.
  struct DispatchExport {
    json attrs;
    DispatchOutput rows;  // the reference's, with expand_x rebuilt (full payload)
    NpyArray expandIdx;
    std::vector<std::int32_t> recv;
  };

  // MoeUpdateExpert takes at most 512 tokens: a larger batch is exported as the layer runs
  // it, one operator call per slice ("moe_update_expert" for the only or first slice,
  // "moe_update_expert_slice<i>" for the others; see layerUpdateExpert). The same calls in
  // the balance mode the layer does not run follow as "moe_update_expert_balance_mode<m>":
  // only the two modes together check both place rules.
  void updateExpert(int r) {
    const int otherMode = 1 - sc_.eplb.balanceMode;
    const std::vector<TokenSlice> slices = updateExpertSlices(BS);
    for (std::size_t i = 0; i < slices.size(); ++i) {
      const std::string slice = i == 0 ? "" : "_slice" + std::to_string(i);
      updateExpertCall(r, slices[i], "moe_update_expert" + slice, sc_.eplb.balanceMode);
    }
    for (std::size_t i = 0; i < slices.size(); ++i) {
      const std::string slice = i == 0 ? "" : "_slice" + std::to_string(i);
      updateExpertCall(r, slices[i],
                       "moe_update_expert_balance_mode" + std::to_string(otherMode) + slice,
                       otherMode);
    }
  }

  void updateExpertCall(int r, TokenSlice sl, const std::string& name, int balanceMode) {
    const int n = sl.end - sl.begin;
    UpdateExpertArgs a = updateExpertArgs(sc_, gating_[sz(r)], r, sl.begin, sl.end);
    a.balanceMode = balanceMode;
    // The reference on the call's own arguments: in the layer's mode that is what the
    // reference chain computed (layerUpdateExpert), which dispatch consumes.
    const UpdateExpertResult u = updateExpertReference(a);
    w_.op(name, "aclnnMoeUpdateExpert", r,
          {{"local_rank_id", a.localRankId},
           {"world_size", a.worldSize},
           {"balance_mode", a.balanceMode}},
          "bit-exact");
    w_.in("expert_ids", i32({sz(n), sz(K)}, a.expertIds), "int32");
    w_.in("eplb_table", i32({sz(E), sz(a.tableCols)}, a.eplbTable), "int32");
    if (a.expertScales) {
      w_.in("expert_scales", f32({sz(n), sz(K)}, *a.expertScales), "float32");
      w_.in("pruning_threshold", f32({sz(K)}, *a.pruningThreshold), "float32");
      w_.in("active_mask", makeNpyBool({sz(n)}, *a.activeMask), "bool");
      w_.note("pruning_boundary_slots", boundarySlots(a));
    }
    w_.golden("balanced_expert_ids", i32({sz(n), sz(K)}, u.balancedIds), "int32");
    if (u.balancedActiveMask)
      w_.golden("balanced_active_mask", makeNpyBool({sz(n), sz(K)}, *u.balancedActiveMask), "bool");
  }

  // The active slots whose scale equals its pruning bound exactly, computed as the
  // reference does (fp32 sum in k order, then threshold[k] times it): the slots a kernel
  // comparing with > instead of >= gets wrong.
  static json boundarySlots(const UpdateExpertArgs& a) {
    json slots = json::array();
    for (int t = 0; t < a.bs; ++t) {
      if (!(*a.activeMask)[sz(t)]) continue;
      const float* s = a.expertScales->data() + sz(t) * sz(a.k);
      float sum = 0.0f;
      for (int k = 0; k < a.k; ++k) sum += s[k];
      for (int k = 0; k < a.k; ++k)
        if (s[k] == (*a.pruningThreshold)[sz(k)] * sum) slots.push_back({t, k});
    }
    return slots;
  }

  // DeepEP's get_dispatch_layout on the balanced ids, pruned slots as -1 (DeepEP's "skip").
  void layout(int r) {
    std::vector<std::int32_t> topk = ref_.updateExpert[sz(r)].balancedIds;
    for (std::size_t i = 0; i < topk.size(); ++i)
      if (!keep_[sz(r)][i]) topk[i] = -1;
    const LayoutResult& l = ref_.layout[sz(r)];
    w_.op("get_dispatch_layout", "deep_ep.Buffer.get_dispatch_layout", r,
          {{"num_ranks", R},
           {"num_experts", R * P},
           {"ranks_per_server", sc_.cluster.cardsPerServer}},
          "bit-exact");
    w_.in("topk_idx", i64({sz(BS), sz(K)}, topk), "int64");
    w_.golden("num_tokens_per_rank", i32({sz(R)}, l.numTokensPerRank), "int32");
    w_.golden("num_tokens_per_rdma_rank",
              i32({l.numTokensPerRdmaRank.size()}, l.numTokensPerRdmaRank), "int32");
    w_.golden("num_tokens_per_expert", i32({sz(R * P)}, l.numTokensPerExpert), "int32");
    w_.golden("is_token_in_rank", makeNpyBool({sz(BS), sz(R)}, l.isTokenInRank), "bool");
  }

  // Where each source slot landed, for the "slots" expand-index layout.
  void slotRows() {
    slotRow_.assign(sz(R), std::vector<std::int32_t>(sz(BS * K), -1));
    for (int d = 0; d < R; ++d) {
      const auto& idx = ref_.dispatch[sz(d)].expandIdx;
      for (std::size_t row = 0; row * 3 < idx.size(); ++row)
        slotRow_[sz(idx[row * 3])][sz(idx[row * 3 + 1] * K + idx[row * 3 + 2])] =
            static_cast<std::int32_t>(row);
    }
  }

  DispatchExport dispatch(int r) {
    const RankGating& g = gating_[sz(r)];
    const DispatchOutput& d = ref_.dispatch[sz(r)];
    const std::size_t A = sz(static_cast<int>(d.rows()));
    DispatchExport out;
    out.attrs = {{"ep_world_size", R},
                 {"ep_rank_id", r},
                 {"moe_expert_num", R * P},
                 {"local_expert_num", P},
                 {"server_num", S},
                 {"ranks_per_server", sc_.cluster.cardsPerServer},
                 {"comm_alg", "hierarchy"},
                 {"expert_token_nums_type", o_.counts == CountEncoding::Counts ? 1 : 0},
                 {"counts_encoding", countsName(o_.counts)},
                 {"expand_idx_layout", expandName(o_.expandIdx)},
                 {"dispatch_dtype", toString(dtype_)},
                 // The real operator's quantMode: 0 none, 2 dynamic per-token int8.
                 {"quant_mode", dtype_ == DispatchDtype::Int8 ? 2 : 0},
                 // The real operators' other device-API arguments, as the scenario implies
                 // them (manifest semantics "device_api" says why each has its value).
                 {"global_bs", BS * R},
                 {"tp_world_size", 1},
                 {"tp_rank_id", 0},
                 {"expert_shard_type", 0},
                 {"shared_expert_num", 0},
                 {"shared_expert_rank_num", 0}};
    w_.op("moe_distribute_dispatch", "aclnnMoeDistributeDispatch", r, out.attrs, "bit-exact");
    if (full_) w_.in("x", bf16Bits({sz(BS), sz(H)}, g.x), "bfloat16");
    w_.in("expert_ids", i32({sz(BS), sz(K)}, ref_.updateExpert[sz(r)].balancedIds), "int32");
    w_.in("expert_scales", f32({sz(BS), sz(K)}, g.topkWeights), "float32");
    w_.in("x_active_mask", makeNpyBool({sz(BS), sz(K)}, keep_[sz(r)]), "bool");
    out.rows = d;
    if (full_) expandRows(out.rows);
    w_.golden("expand_scales", f32({A}, d.expandScales), "float32");
    out.expandIdx = o_.expandIdx == ExpandIdxLayout::Rows ? i32({A, 3}, d.expandIdx)
                                                          : i32({sz(BS), sz(K)}, slotRow_[sz(r)]);
    w_.golden("expand_idx", out.expandIdx, "int32");
    w_.golden("expert_token_nums", i64({sz(P)}, encodeCounts(d.expertTokenNums, o_.counts)),
              "int64");
    out.recv = encodeCounts(d.lengths, o_.counts);
    w_.golden("ep_recv_counts", i32({sz(P), sz(R)}, out.recv), "int32");
    // A2 hierarchical: what each local expert receives from each server (the inter-server
    // stage's counts), summed over that server's ranks.
    std::vector<std::int32_t> perServer(sz(P * S), 0);
    for (int le = 0; le < P; ++le)
      for (int src = 0; src < R; ++src)
        perServer[sz(le * S + src / sc_.cluster.cardsPerServer)] += d.lengths[sz(le * R + src)];
    w_.golden("ep_recv_counts_per_server", i32({sz(P), sz(S)}, encodeCounts(perServer, o_.counts)),
              "int32");
    return out;
  }

  // The rows are not kept by the reference chain (hundreds of MB); rebuild this rank's.
  // With a quantized dispatch a row crosses as one-byte codes and fp32 scales (fp8: one per
  // 128 elements, DeepEP's format; int8: one per token, Ascend's), and expand_x is what the
  // receiver holds: the dequantized row.
  void expandRows(DispatchOutput& rows) {
    const std::size_t A = sz(static_cast<int>(rows.rows()));
    const std::size_t nScales = sz(quantScaleCount(dtype_, H));
    rows.expandX.resize(A * sz(H));
    std::vector<std::uint8_t> codes(quantized_ ? A * sz(H) : 0);
    std::vector<float> scales(quantized_ ? A * nScales : 0);
    std::vector<std::uint8_t> wire(sz(quantRowBytes(dtype_, H)));
    for (std::size_t row = 0; row < A; ++row) {
      const auto& src = gating_[sz(rows.expandIdx[row * 3])].x;
      const bf16* x = src.data() + sz(rows.expandIdx[row * 3 + 1]) * sz(H);
      bf16* out = rows.expandX.data() + row * sz(H);
      if (!quantized_) {
        std::copy_n(x, H, out);
        continue;
      }
      quantizeRow(dtype_, x, H, wire.data());
      dequantizeRow(dtype_, wire.data(), H, out);
      std::copy_n(wire.data(), H, codes.data() + row * sz(H));
      std::memcpy(scales.data() + row * nScales, wire.data() + H, nScales * sizeof(float));
    }
    w_.golden("expand_x", bf16Bits({A, sz(H)}, rows.expandX), "bfloat16");
    if (!quantized_) return;
    const std::string q = toString(dtype_);
    NpyArray codesNpy = makeNpy<std::uint8_t>({A, sz(H)}, codes);
    if (dtype_ == DispatchDtype::Int8) codesNpy.dtype = NpyDtype<std::int8_t>::descr;
    w_.golden("expand_x_" + q, std::move(codesNpy),
              dtype_ == DispatchDtype::Fp8 ? "float8_e4m3fn" : "int8");
    w_.golden("expand_x_" + q + "_scales", f32({A, nScales}, scales), "float32");
  }

  void combine(int r, DispatchExport& d, const std::vector<int>& instanceLogical) {
    const RankGating& g = gating_[sz(r)];
    const std::size_t A = sz(static_cast<int>(d.rows.rows()));
    const std::vector<bf16> y = expertsReference(d.rows, r, P, H, instanceLogical);
    d.rows.expandX.clear();
    d.rows.expandX.shrink_to_fit();
    const CombineShape shape{BS, H, K, P, sc_.combine.sharedExpert};
    // With a quantized dispatch the routed experts saw x after the round trip.
    std::vector<bf16> routed;
    if (quantized_) {
      routed.resize(g.x.size());
      for (int t = 0; t < BS; ++t)
        quantRoundTrip(dtype_, g.x.data() + sz(t * H), H, routed.data() + sz(t * H));
    }
    const CombineSource src{&g.x, &g.topkIds, &g.topkWeights, &keep_[sz(r)],
                            quantized_ ? &routed : nullptr};
    const bool norm = sc_.combine.addRmsNorm;
    json cattrs = d.attrs;
    // Dispatch-only arguments; the combine's own are comm_quant_mode and out_dtype.
    cattrs.erase("expert_token_nums_type");
    cattrs.erase("quant_mode");
    cattrs["comm_quant_mode"] = 0;  // the combine carries bf16 rows
    cattrs["out_dtype"] = 0;        // x comes out in x's dtype, bf16
    cattrs["shared_expert"] = sc_.combine.sharedExpert;
    if (norm) cattrs["norm_eps"] = sc_.combine.rmsEps;
    w_.op(norm ? "moe_distribute_combine_add_rms_norm" : "moe_distribute_combine",
          norm ? "aclnnMoeDistributeCombineAddRmsNorm" : "aclnnMoeDistributeCombine", r, cattrs,
          "bf16 tolerance: |got - golden| <= 2^-7 |golden| + 2^-16 sum_k |w_k y_k| per element "
          "(fp32 sums in another order, then one bf16 rounding)");
    w_.in("expand_x", bf16Bits({A, sz(H)}, y), "bfloat16");
    w_.in("expert_ids", i32({sz(BS), sz(K)}, ref_.updateExpert[sz(r)].balancedIds), "int32");
    w_.in("expand_idx", d.expandIdx, "int32");
    w_.in("ep_send_counts", i32({sz(P), sz(R)}, d.recv), "int32");
    w_.in("expert_scales", f32({sz(BS), sz(K)}, g.topkWeights), "float32");
    w_.in("x_active_mask", makeNpyBool({sz(BS), sz(K)}, keep_[sz(r)]), "bool");
    if (sc_.combine.sharedExpert) {
      std::vector<bf16> shared(sz(BS * H));
      for (int t = 0; t < BS; ++t)
        sharedExpertRow(g.x.data() + sz(t * H), shared.data() + sz(t * H), H);
      w_.in("shared_expert_x", bf16Bits({sz(BS), sz(H)}, shared), "bfloat16");
    }
    if (!norm) {
      w_.golden("x", bf16Bits({sz(BS), sz(H)}, combineReference(shape, src).out), "bfloat16");
      return;
    }
    std::vector<bf16> gamma(sz(H));
    for (int h = 0; h < H; ++h) gamma[sz(h)] = floatToBf16(rmsNormGamma(h));  // exact in bf16
    w_.in("residual_x", bf16Bits({sz(BS), sz(H)}, g.x), "bfloat16");
    w_.in("gamma", bf16Bits({sz(H)}, gamma), "bfloat16");
    const AddRmsNormResult n = addRmsNormReference(combineReference(shape, src).sum, g.x, BS, H,
                                                   static_cast<float>(sc_.combine.rmsEps));
    w_.golden("y", bf16Bits({sz(BS), sz(H)}, n.y), "bfloat16");
    w_.golden("rstd", f32({sz(BS), 1}, n.rstd), "float32");
    w_.golden("x", bf16Bits({sz(BS), sz(H)}, n.xOut), "bfloat16");
  }

  const Scenario& sc_;
  const std::vector<RankGating>& gating_;
  const ReferenceLayer ref_;
  const VectorExportOptions& o_;
  Writer& w_;
  const int R, BS, K, H, E, S, P;
  const DispatchDtype dtype_;
  const bool quantized_, full_;
  std::vector<std::vector<std::uint8_t>> keep_;
  std::vector<std::vector<std::int32_t>> slotRow_;
};

}  // namespace

void exportMoeLayer(const ResolvedScenario& rs, const VectorExportOptions& o, Writer& w) {
  LayerExport(rs, o, w).run();
}

}  // namespace moe::vectors
