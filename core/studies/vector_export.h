#pragma once
// Golden test vectors (DESIGN.md §7): for every operator of a run and every rank, the inputs and
// golden outputs as .npy files named after the real operator's arguments, plus a
// manifest.json, so a device kernel test (Python, op-plugin style) can load them directly.
//
// The vectors come from the golden references (core/reference), never from the emulated
// kernels, and the emulation is run separately only to record its digest in the manifest:
// exporting changes nothing in the run, so the digest is the one `moe-sim run` prints.
//
// Encodings that differ between CANN versions are a choice, named in the manifest:
//   - counts (`expert_token_nums`, `ep_recv_counts`, `ep_send_counts`): per-entry counts or
//     inclusive prefix sums (expert_token_nums_type 1 or 0 of aclnnMoeDistributeDispatch);
//   - the expand index: `rows` writes one (source rank, source token, k slot) triple per
//     received row on the receiving rank, [A, 3]; `slots` writes, on the sending rank, the
//     row each (token, k) slot lands in on its destination rank, [BS, K] (-1 = not sent).
// bf16 tensors are written as '<u2' arrays holding the bf16 bit patterns (numpy has no bf16):
// `(a.astype(np.uint32) << 16).view(np.float32)` recovers the values.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/scenario/scenario.h"

namespace moe {

enum class CountEncoding { Counts, PrefixSums };
enum class ExpandIdxLayout { Rows, Slots };

struct VectorExportOptions {
  CountEncoding counts = CountEncoding::Counts;
  ExpandIdxLayout expandIdx = ExpandIdxLayout::Rows;
  // Run the emulation to record its digest in the manifest. Off only where the caller has
  // the digest already or does not want to pay for the run (the manifest then says so).
  bool recordDigest = true;
  // Replace a non-empty output directory that holds no earlier export (--force).
  bool force = false;
};

struct ExportedFile {
  std::string file;  // relative to the output directory
  std::string op;    // operator, e.g. "moe_update_expert"
  int rank = 0;
  std::string role;          // "input" or "golden"
  std::string argument;      // the real operator's argument name
  std::string dtype;         // numpy descr as written
  std::string logicalDtype;  // int32, int64, float32, float16, bfloat16, bool
  std::vector<std::size_t> shape;
};

struct VectorExportResult {
  std::vector<ExportedFile> files;
  std::uint64_t digest = 0;  // the run's; 0 when recordDigest was off
  // Of the exported arrays themselves (manifest "vectors_digest", see Writer in
  // vector_writer.h): the run digest covers the run, not the goldens written beside it.
  std::uint64_t vectorsDigest = 0;
  std::string manifestPath;
};

// The scenario `moe-sim export-vectors` exports when given none (resources/scenarios/
// vectors.json), not the run's default: small (16 ranks on 2 servers, the smallest world
// the real A2 hierarchical dispatch accepts; 32 tokens, H 256) and chosen so the vectors
// catch the mistakes a kernel is likely to make: an eplb_table with replicas (counts 1 to
// 5; 5 and 3 on 16 ranks are where ceil and floor differ), both balance modes, pruning
// thresholds that prune some slots and meet two scales exactly, and a partially active
// mask. The run's default scenario has none of these.
Scenario defaultVectorScenario();

// Writes the vectors of `scenario` as the directory `dir`: into a staging sibling first, which
// then replaces `dir` whole (core/util/staged_directory.h), so `dir` holds exactly the files
// the manifest lists, plus manifest.json. Throws InputError for a scenario that cannot run (as
// `moe-sim run` would), for an unwritable directory ("--out"), and for a non-empty `dir` that
// holds no earlier export unless options.force.
VectorExportResult exportVectors(const Scenario& scenario, const std::string& dir,
                                 const VectorExportOptions& options = {});

// The version written into manifests ("tool_version").
const char* toolVersion();

}  // namespace moe
