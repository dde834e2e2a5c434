#include "core/studies/vector_export.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/reference/a2a_matmul_rs.h"
#include "core/reference/combine_reference.h"
#include "core/reference/dispatch_quant.h"
#include "core/run/a2a_matmul_report.h"
#include "core/run/expert_balance.h"
#include "core/run/layer_args.h"
#include "core/run/reference_chain.h"
#include "core/run/resolved_scenario.h"
#include "core/run/run_report.h"
#include "core/scenario/scenario_json.h"
#include "core/util/bounded_file.h"
#include "core/util/error.h"
#include "core/util/format_digest.h"
#include "core/util/npy.h"
#include "core/util/staged_directory.h"

#ifndef MOE_TOOL_VERSION
#define MOE_TOOL_VERSION "unknown"
#endif

namespace moe {

const char* toolVersion() {
  return MOE_TOOL_VERSION;
}

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Shape = std::vector<std::size_t>;

std::size_t sz(int v) {
  return static_cast<std::size_t>(v);
}

// Collects the files and the per-operator records of one export.
class Writer {
 public:
  explicit Writer(fs::path dir) : dir_(std::move(dir)) {}

  void op(const std::string& name, const std::string& aclnn, int rank, json attrs,
          const std::string& comparison) {
    op_ = name;
    rank_ = rank;
    operators_.push_back({{"op", name},
                          {"aclnn", aclnn},
                          {"rank", rank},
                          {"directory", relDir()},
                          {"attrs", std::move(attrs)},
                          {"comparison", comparison}});
  }

  // logical is what the array means (bfloat16 for '<u2' bit patterns, float16 for '<f2').
  void file(const std::string& role, const std::string& argument, NpyArray a,
            const std::string& logical) {
    const std::string rel = relDir() + "/" + argument + ".npy";
    const fs::path full = dir_ / rel;
    std::error_code ec;
    fs::create_directories(full.parent_path(), ec);
    require(!ec, "--out", "cannot create directory '" + full.parent_path().string() + "'");
    writeNpy(full.string(), a);
    files_.push_back({rel, op_, rank_, role, argument, a.dtype, logical, a.shape});
  }
  void in(const std::string& arg, NpyArray a, const std::string& logical) {
    file("input", arg, std::move(a), logical);
  }
  void golden(const std::string& arg, NpyArray a, const std::string& logical) {
    file("golden", arg, std::move(a), logical);
  }

  std::vector<ExportedFile>& files() { return files_; }
  json operators() const { return operators_; }

 private:
  std::string relDir() const { return op_ + "/rank" + std::to_string(rank_); }
  fs::path dir_;
  std::string op_;
  int rank_ = 0;
  std::vector<ExportedFile> files_;
  json operators_ = json::array();
};

NpyArray i32(Shape s, const std::vector<std::int32_t>& v) {
  return makeNpy<std::int32_t>(std::move(s), v);
}
NpyArray i64(Shape s, const std::vector<std::int32_t>& v) {
  return makeNpy<std::int64_t>(std::move(s), std::vector<std::int64_t>(v.begin(), v.end()));
}
NpyArray f32(Shape s, const std::vector<float>& v) {
  return makeNpy<float>(std::move(s), v);
}
NpyArray bf16Bits(Shape s, const std::vector<bf16>& v) {
  return makeNpy<std::uint16_t>(std::move(s), v);
}
NpyArray fp16Array(Shape s, const std::vector<fp16>& v) {
  NpyArray a = makeNpy<std::uint16_t>(std::move(s), v);
  a.dtype = "<f2";  // IEEE half: numpy's float16, bit for bit
  return a;
}

std::vector<std::int32_t> encodeCounts(std::vector<std::int32_t> v, CountEncoding e) {
  if (e == CountEncoding::PrefixSums)
    for (std::size_t i = 1; i < v.size(); ++i) v[i] += v[i - 1];
  return v;
}

const char* countsName(CountEncoding e) {
  return e == CountEncoding::Counts ? "counts" : "prefix-sums";
}
const char* expandName(ExpandIdxLayout l) {
  return l == ExpandIdxLayout::Rows ? "rows" : "slots";
}

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
  // "moe_update_expert_slice<i>" for the others; see layerUpdateExpert).
  void updateExpert(int r) {
    const UpdateExpertResult& u = ref_.updateExpert[sz(r)];
    const bool pruning = !sc_.eplb.pruningThreshold.empty();
    const std::vector<TokenSlice> slices = updateExpertSlices(BS);
    for (std::size_t i = 0; i < slices.size(); ++i) {
      const TokenSlice sl = slices[i];
      const int n = sl.end - sl.begin;
      const UpdateExpertArgs a = updateExpertArgs(sc_, gating_[sz(r)], r, sl.begin, sl.end);
      const auto from = static_cast<std::ptrdiff_t>(sz(sl.begin) * sz(K));
      const auto to = static_cast<std::ptrdiff_t>(sz(sl.end) * sz(K));
      const std::string name =
          i == 0 ? std::string("moe_update_expert") : "moe_update_expert_slice" + std::to_string(i);
      w_.op(name, "aclnnMoeUpdateExpert", r,
            {{"local_rank_id", a.localRankId},
             {"world_size", a.worldSize},
             {"balance_mode", a.balanceMode}},
            "bit-exact");
      w_.in("expert_ids", i32({sz(n), sz(K)}, a.expertIds), "int32");
      w_.in("eplb_table", i32({sz(E), sz(a.tableCols)}, a.eplbTable), "int32");
      if (pruning) {
        w_.in("expert_scales", f32({sz(n), sz(K)}, *a.expertScales), "float32");
        w_.in("pruning_threshold", f32({sz(K)}, *a.pruningThreshold), "float32");
        w_.in("active_mask", makeNpyBool({sz(n)}, *a.activeMask), "bool");
      }
      w_.golden("balanced_expert_ids",
                i32({sz(n), sz(K)}, std::vector<std::int32_t>(u.balancedIds.begin() + from,
                                                              u.balancedIds.begin() + to)),
                "int32");
      if (u.balancedActiveMask)
        w_.golden("balanced_active_mask",
                  makeNpyBool({sz(n), sz(K)},
                              std::vector<std::uint8_t>(u.balancedActiveMask->begin() + from,
                                                        u.balancedActiveMask->begin() + to)),
                  "bool");
    }
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
                 {"quant_mode", dtype_ == DispatchDtype::Int8 ? 2 : 0}};
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
    cattrs.erase("expert_token_nums_type");
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

void exportMoeLayer(const ResolvedScenario& rs, const VectorExportOptions& o, Writer& w) {
  LayerExport(rs, o, w).run();
}

void exportA2aMatmul(const ResolvedScenario& rs, Writer& w) {
  const A2aMatmulInputs& in = *rs.a2aInputs();
  const A2aMatmulShape& s = in.shape;
  const A2aMatmulReference ref = a2aMatmulReference(in);
  for (int r = 0; r < s.ranks; ++r) {
    w.op("alltoall_matmul_reduce_scatter", "aclnnAlltoAllMatmulReduceScatter", r,
         {{"world_size", s.ranks}, {"m", s.m}, {"n", s.n}, {"k", s.k}},
         "fp16 tolerance: |got - golden| <= 2^-10 |exact| + 1e-3 sum_k |a w| + 1e-6");
    w.in("input", fp16Array({sz(s.rowsPerRank()), sz(s.k)}, in.a[sz(r)]), "float16");
    w.in("weight", fp16Array({sz(s.kPerRank()), sz(s.n)}, in.w[sz(r)]), "float16");
    w.golden("output", fp16Array({sz(s.rowsPerRank()), sz(s.n)}, ref.out[sz(r)]), "float16");
  }
}

constexpr const char* kManifestName = "manifest.json";
constexpr const char* kManifestFormat = "moe-workbench golden vectors 1";
// A manifest lists every file of every rank; large clusters make it megabytes, never this.
constexpr std::uintmax_t kMaxManifestBytes = std::uintmax_t{256} << 20;

// True when `dir` holds a manifest.json this tool wrote: an earlier export, which a new
// export may replace.
bool isEarlierExport(const fs::path& dir) {
  try {
    const std::string text =
        readBoundedFile((dir / kManifestName).string(), kMaxManifestBytes, "--out");
    const json m = json::parse(text, nullptr, false);
    return m.is_object() && m.contains("format") && m["format"] == kManifestFormat;
  } catch (const InputError&) {
    return false;  // no manifest, or not a regular readable file
  }
}

// An existing --out must be a directory that is empty or an earlier export, unless
// `force`: the export replaces the whole directory.
void refuseForeignTarget(const std::string& dir, bool force) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) return;
  require(fs::is_directory(st), "--out", "'" + dir + "' exists and is not a directory");
  if (force || fs::is_empty(dir, ec) || isEarlierExport(dir)) return;
  throw InputError("--out", "'" + dir +
                                "' is not empty and holds no earlier export (no manifest.json "
                                "written by moe-sim export-vectors); the export replaces the "
                                "whole directory: pass --force to replace it");
}

}  // namespace

VectorExportResult exportVectors(const Scenario& given, const std::string& dir,
                                 const VectorExportOptions& o) {
  require(!dir.empty(), "--out", "must name a directory");
  // Resolving checks everything a run checks and generates the inputs once; the run (for
  // the digest) and the references below both read them.
  const ResolvedScenario rs = ResolvedScenario::resolve(given);
  const Scenario& sc = rs.scenario();
  const bool a2a = rs.workload() == WorkloadKind::AlltoallMatmulRs;
  refuseForeignTarget(dir, o.force);

  VectorExportResult result;
  if (o.recordDigest)
    result.digest = a2a ? runA2aMatmulWorkload(rs, false).digest() : runScenario(rs, false).digest;

  // Everything goes into a staging sibling that replaces --out only once complete (removed
  // if anything below throws), so --out never holds half an export or another's files.
  StagedDirectory staged(dir, "--out");
  Writer w{fs::path(staged.path())};
  if (a2a)
    exportA2aMatmul(rs, w);
  else
    exportMoeLayer(rs, o, w);

  json files = json::array();
  for (const ExportedFile& f : w.files())
    files.push_back({{"file", f.file},
                     {"op", f.op},
                     {"rank", f.rank},
                     {"role", f.role},
                     {"argument", f.argument},
                     {"dtype", f.dtype},
                     {"logical_dtype", f.logicalDtype},
                     {"shape", f.shape}});
  json m = {
      {"format", kManifestFormat},
      {"tool", "moe-workbench"},
      {"tool_version", toolVersion()},
      {"scenario", sc.name},
      {"seed", sc.seed},
      {"digest", o.recordDigest ? json(formatDigest(result.digest)) : json(nullptr)},
      {"workload", toString(sc.workload.kind)},
      // Without a payload there is no x, expand_x or combine to write.
      {"payload", toString(sc.payload)},
      {"encodings",
       {{"bfloat16",
         "'<u2' arrays of bf16 bit patterns (numpy has no bf16); values: "
         "(a.astype(np.uint32) << 16).view(np.float32)"},
        {"float16", "'<f2' (IEEE half, numpy float16)"},
        {"bool", "'|b1' (numpy bool)"},
        {"counts", countsName(o.counts)},
        {"counts_doc",
         "expert_token_nums, ep_recv_counts, ep_recv_counts_per_server and ep_send_counts hold "
         "per-entry counts ('counts', expert_token_nums_type 1) or inclusive prefix sums over "
         "the flattened array ('prefix-sums', expert_token_nums_type 0)"},
        {"counts_other",
         o.counts == CountEncoding::Counts ? "--counts prefix-sums" : "--counts counts"},
        {"expand_idx", expandName(o.expandIdx)},
        {"expand_idx_doc",
         "rows: on the receiving rank, [A, 3] int32 = (source rank, source token, k slot) per "
         "row of expand_x, rows ordered by local expert, then source rank, then source token; "
         "slots: on the sending rank, [BS, K] int32 = the row of expand_x on the destination "
         "rank where slot (token, k) landed, -1 when it was not sent"},
        {"expand_idx_other",
         o.expandIdx == ExpandIdxLayout::Rows ? "--expand-idx slots" : "--expand-idx rows"}}},
      {"scenario_json", scenarioToJson(given)},
      {"operators", w.operators()},
      {"files", std::move(files)}};
  const std::string manifest = (fs::path(staged.path()) / kManifestName).string();
  {
    std::ofstream out(manifest, std::ios::binary);
    require(out.good(), "--out", "cannot write '" + manifest + "'");
    out << m.dump(2) << "\n";
    out.flush();
    require(out.good(), "--out", "error while writing '" + manifest + "'");
  }
  staged.commit();
  result.manifestPath = (fs::path(dir) / kManifestName).string();
  result.files = std::move(w.files());
  return result;
}

}  // namespace moe
