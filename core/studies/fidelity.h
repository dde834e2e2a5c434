#pragma once
// The timing model held against real measurements: DeepEP's published benchmark shapes
// (its V1 README, now docs/legacy.md of deepseek-ai/DeepEP) run on the h800-nvswitch profile
// in payload none, with each figure computed the way DeepEP's own tests compute it
// (tests/test_intranode.py, test_internode.py, test_low_latency.py). docs/FIDELITY.md has the
// method, the formulas, the calibration and the prediction table.
//
//   normal mode:  4096 tokens, H 7168, 256 experts, top-8, FP8 dispatch, BF16 combine, the
//                 hierarchical (streaming) design; EP 8 is intranode (plain top-8, as
//                 test_intranode.py), EP 16/32/64 internode with group-limited routing (one
//                 group per server, top-min(servers, 4) groups, as test_internode.py).
//   low latency:  128 tokens, H 7168, 256 experts, top-8, FP8 dispatch, BF16 combine, the
//                 flat design, EP 8 ... 256.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/reference/gating.h"
#include "core/run/design.h"
#include "core/scenario/scenario.h"

namespace moe {

enum class FidelityMode { Normal, LowLatency };

// Which hardware the shapes are held against: DeepEP V1's H800 table (published figures
// beside the predictions), or the Atlas A3 supernode (predictions only; the measurements are
// held out and compared outside the project: a blind check, docs/FIDELITY.md).
enum class FidelityTarget { H800, AscendA3 };
// "h800", "ascend-a3".
std::string_view fidelityTargetName(FidelityTarget t);
std::optional<FidelityTarget> fidelityTargetFromName(std::string_view name);

// What DeepEP publishes for a shape (0 where it publishes nothing).
struct PublishedFigures {
  double dispatchGBps = 0, combineGBps = 0;  // normal: bottleneck; low latency: RDMA
  double dispatchUs = 0, combineUs = 0;      // low latency only
};

struct FidelityCase {
  FidelityMode mode = FidelityMode::Normal;
  int ep = 8;
  Design design = Design::Streaming;
  Scenario scenario;
  PublishedFigures published;
  bool calibration = false;  // the one shape the profile was fitted to
};

// The target's shapes on its built-in profile (h800-nvswitch, atlas-a3-superpod).
std::vector<FidelityCase> fidelityCases(FidelityTarget t, int normalTokens = 4096);

// DeepEP's shapes on `profile` (normally h800-nvswitch). normalTokens replaces 4096 when
// the engine cannot take it yet (a stand-in, labelled as such by the caller).
std::vector<FidelityCase> deepEpCases(const HardwareProfile& profile, int normalTokens = 4096);

// The DeepEP-Ascend benchmark shapes on `profile` (normally atlas-a3-superpod), all ranks in
// one UB domain, flat design, INT8 dispatch, BF16 combine: normal mode 4096 tokens at EP 8,
// 16, 32, 64, 128; low latency 128 tokens at EP 8, 16, 32.
std::vector<FidelityCase> ascendA3Cases(const HardwareProfile& profile, int normalTokens = 4096);

// The logical bytes DeepEP's tests divide by the kernel time, for rank 0 (local_rank 0 prints).
struct DeepEpBytes {
  double dispatch = 0, combine = 0;
  const char* link = "";  // "NVLink" or "RDMA"
};
// Normal mode. Intranode: NVLink receive bytes = tokens rank 0 receives (one per source
// token routed to it) x H x 2 x fp8_factor for dispatch, x H x 2 for combine, fp8_factor =
// (1 + 4/128) / 2. Internode: num_rdma_token_sent = over rank 0's tokens, the number of
// distinct destination servers (its own included) x H x 2 (x fp8_factor for dispatch).
DeepEpBytes normalModeBytes(const std::vector<RankGating>& gating, const Scenario& sc);
// Low latency: over rank 0's tokens, each kept (token, expert) selection counts
// H + H/128 x 4 + 16 bytes for fp8 dispatch and H x 2 for bf16 combine.
DeepEpBytes lowLatencyBytes(const std::vector<RankGating>& gating, const Scenario& sc);

struct FidelityResult {
  FidelityCase c;
  std::string notRun;  // why the shape could not run (empty: it ran)
  double dispatchUs = 0, combineUs = 0;
  DeepEpBytes bytes;
  double dispatchGBps() const { return dispatchUs > 0 ? bytes.dispatch / dispatchUs / 1e3 : 0; }
  double combineGBps() const { return combineUs > 0 ? bytes.combine / combineUs / 1e3 : 0; }
};

// Runs one shape (payload none, no verification) and takes the dispatch and combine stage
// durations as the kernel times. An InputError (a shape the engine refuses) becomes notRun.
FidelityResult runFidelityCase(const FidelityCase& c);

}  // namespace moe
