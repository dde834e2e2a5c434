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
#include "core/studies/layer_vector_export.h"
#include "core/studies/vector_semantics.h"
#include "core/studies/vector_writer.h"
#include "core/util/bounded_file.h"
#include "core/util/embedded_resources.h"
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

Scenario defaultVectorScenario() {
  const auto text = embeddedFile("scenarios/vectors.json");
  require(text.has_value(), "resources/scenarios/vectors.json", "is not embedded");
  return scenarioFromJson(nlohmann::json::parse(*text));
}

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace vectors;

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

namespace {

// How the arrays and the two layout choices (counts, expand_idx) are encoded.
json encodingsJson(const VectorExportOptions& o) {
  return json{
      {"bfloat16",
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
       o.expandIdx == ExpandIdxLayout::Rows ? "--expand-idx slots" : "--expand-idx rows"}};
}

// One entry per file written, in the order written.
json filesJson(const std::vector<ExportedFile>& written) {
  json files = json::array();
  for (const ExportedFile& f : written)
    files.push_back({{"file", f.file},
                     {"op", f.op},
                     {"rank", f.rank},
                     {"role", f.role},
                     {"argument", f.argument},
                     {"dtype", f.dtype},
                     {"logical_dtype", f.logicalDtype},
                     {"shape", f.shape}});
  return files;
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

  json m = {
      {"format", kManifestFormat},
      {"tool", "moe-workbench"},
      {"tool_version", toolVersion()},
      {"scenario", sc.name},
      {"seed", sc.seed},
      {"digest", o.recordDigest ? json(formatDigest(result.digest)) : json(nullptr)},
      {"vectors_digest", formatDigest(w.contentsDigest())},
      {"vectors_digest_doc",
       "FNV-1a 64 over every file in the order listed, in two parts per file: its path (as in "
       "\"file\"), then its array's bytes (little-endian, C order, bool as 0/1 bytes; the "
       ".npy header is not hashed). Each part is taken as 8-byte little-endian words, then its "
       "remaining bytes one at a time: h = (h ^ v) * 0x100000001b3 mod 2^64 per word or byte, "
       "from h = 0xcbf29ce484222325. \"digest\" is the run's"},
      {"workload", toString(sc.workload.kind)},
      // Without a payload there is no x, expand_x or combine to write.
      {"payload", toString(sc.payload)},
      {"encodings", encodingsJson(o)},
      {"scenario_json", scenarioToJson(given)},
      {"semantics", a2a ? json::object() : moeLayerSemantics()},
      {"operators", w.operators()},
      {"files", filesJson(w.files())}};
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
  result.vectorsDigest = w.contentsDigest();
  result.files = std::move(w.files());
  return result;
}

}  // namespace moe
