#include "core/op_io/op_dispatch_combine_json.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/reference/combine_reference.h"
#include "core/reference/dispatch_reference.h"
#include "core/util/bf16.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"

namespace moe {
namespace {

using nlohmann::json;
namespace jf = moe::jsonf;

// Bounds that refuse absurd cases before anything is allocated: one JSON case is for
// checking a handful of tokens, not a whole layer (export-vectors writes those).
constexpr int kMaxRanks = 64;
constexpr std::size_t kMaxTokens = 4096;
constexpr std::size_t kMaxHidden = 16384;
constexpr std::size_t kMaxTopk = 64;
constexpr int kMaxLocalExperts = 256;

// A rectangular matrix of numbers, converted by `convert`; returns {rows, cols}.
template <typename T, typename Convert>
std::pair<std::size_t, std::size_t> matrix(const json& j, const std::string& path,
                                           std::size_t maxRows, std::size_t maxCols,
                                           std::vector<T>& flat, Convert convert) {
  jf::array(j, path, maxRows);
  flat.clear();
  std::size_t cols = 0;
  for (std::size_t r = 0; r < j.size(); ++r) {
    const std::string rp = jf::index(path, r);
    jf::array(j[r], rp, maxCols);
    if (r == 0) cols = j[r].size();
    require(j[r].size() == cols, rp, "must have as many elements as row 0");
    for (std::size_t c = 0; c < j[r].size(); ++c)
      flat.push_back(convert(j[r][c], jf::index(rp, c)));
  }
  return {j.size(), cols};
}

float fp32Value(const json& j, const std::string& path) {
  require(j.is_number(), path, "must be a number");
  const double v = j.get<double>();
  require(std::isfinite(v) && std::fabs(v) <= FLT_MAX, path, "must be a finite fp32 value");
  return static_cast<float>(v);
}
bf16 bf16Value(const json& j, const std::string& path) {
  const bf16 b =
      floatToBf16(fp32Value(j, path));  // rounded to nearest even, as the device holds it
  // Near FLT_MAX the rounding overflows to infinity, which the outputs could only print as null.
  require(std::isfinite(bf16ToFloat(b)), path,
          "must stay finite when rounded to bf16 (the stored dtype), got " + j.dump());
  return b;
}
std::int32_t int32Value(const json& j, const std::string& path) {
  return static_cast<std::int32_t>(jf::integer(j, path, std::numeric_limits<std::int32_t>::min(),
                                               std::numeric_limits<std::int32_t>::max()));
}
std::uint8_t boolValue(const json& j, const std::string& path) {
  return jf::boolean(j, path) ? 1 : 0;
}

// The rows are built as plain vectors and converted once: a half-built json row dropped by a
// std::bad_alloc would allocate again in its destructor (nlohmann's destructor allocates),
// which ends the process instead of reporting "out of memory".
json bf16Rows(const std::vector<bf16>& v, std::size_t cols) {
  std::vector<std::vector<float>> rows(cols > 0 ? v.size() / cols : 0, std::vector<float>(cols));
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < cols; ++c) rows[r][c] = bf16ToFloat(v[r * cols + c]);
  return json(rows);
}
json intRows(const std::vector<std::int32_t>& v, std::size_t cols) {
  json out = json::array();
  for (std::size_t r = 0; r < v.size() / cols; ++r)
    out.push_back(std::vector<std::int32_t>(v.begin() + std::ptrdiff_t(r * cols),
                                            v.begin() + std::ptrdiff_t((r + 1) * cols)));
  return out;
}

const json& ranksArray(const json& in) {
  const json& ranks = jf::array(jf::requiredMember(in, "", "ranks"), "ranks", kMaxRanks + 1);
  require(!ranks.empty() && ranks.size() <= std::size_t(kMaxRanks), "ranks",
          "must list 1 to " + std::to_string(kMaxRanks) + " ranks, got " +
              std::to_string(ranks.size()));
  return ranks;
}

// Checks that rank r's matrix has the shape every rank must share.
void sameShape(std::pair<std::size_t, std::size_t> got, std::pair<std::size_t, std::size_t> want,
               const std::string& path, const char* what) {
  require(got == want, path,
          std::string("must be ") + what + " [" + std::to_string(want.first) + ", " +
              std::to_string(want.second) + "] like rank 0's, got [" + std::to_string(got.first) +
              ", " + std::to_string(got.second) + "]");
}

}  // namespace

json dispatchOpJson(const json& in) {
  jf::rejectUnknownKeys(in, "", {"ranks", "local_expert_num"});
  const json& ranks = ranksArray(in);
  const int R = static_cast<int>(ranks.size());
  const int P = static_cast<int>(jf::integer(jf::requiredMember(in, "", "local_expert_num"),
                                             "local_expert_num", 1, kMaxLocalExperts));
  std::vector<DispatchSource> src(static_cast<std::size_t>(R));
  std::pair<std::size_t, std::size_t> xShape, idShape;
  for (int r = 0; r < R; ++r) {
    const std::string rp = jf::index("ranks", std::size_t(r));
    const json& rank = jf::object(ranks[std::size_t(r)], rp);
    jf::rejectUnknownKeys(rank, rp, {"x", "expert_ids", "expert_scales", "x_active_mask"});
    DispatchSource& s = src[std::size_t(r)];
    const auto xs = matrix<bf16>(jf::requiredMember(rank, rp, "x"), jf::child(rp, "x"), kMaxTokens,
                                 kMaxHidden, s.x, bf16Value);
    const auto is =
        matrix<std::int32_t>(jf::requiredMember(rank, rp, "expert_ids"),
                             jf::child(rp, "expert_ids"), kMaxTokens, kMaxTopk, s.ids, int32Value);
    const auto ws =
        matrix<float>(jf::requiredMember(rank, rp, "expert_scales"), jf::child(rp, "expert_scales"),
                      kMaxTokens, kMaxTopk, s.weights, fp32Value);
    if (r == 0) {
      xShape = xs;
      idShape = is;
      require(xs.first > 0 && xs.second > 0, jf::child(rp, "x"), "must not be empty");
      require(is.second > 0, jf::child(rp, "expert_ids"), "must have at least one column (K)");
    }
    sameShape(xs, xShape, jf::child(rp, "x"), "BS x H");
    sameShape(is, {xShape.first, idShape.second}, jf::child(rp, "expert_ids"), "BS x K");
    sameShape(ws, {xShape.first, idShape.second}, jf::child(rp, "expert_scales"), "BS x K");
    if (const json* m = jf::member(rank, "x_active_mask")) {
      const auto ms = matrix<std::uint8_t>(*m, jf::child(rp, "x_active_mask"), kMaxTokens, kMaxTopk,
                                           s.mask, boolValue);
      sameShape(ms, {xShape.first, idShape.second}, jf::child(rp, "x_active_mask"), "BS x K");
    } else {
      s.mask.assign(s.ids.size(), 1);
    }
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
      if (!s.mask[i]) continue;
      require(
          s.ids[i] >= 0 && s.ids[i] < R * P,
          jf::index(jf::index(jf::child(rp, "expert_ids"), i / idShape.second), i % idShape.second),
          "expert id must be in [0, ranks * local_expert_num) = [0, " + std::to_string(R * P) +
              "), got " + std::to_string(s.ids[i]));
    }
  }
  const int BS = int(xShape.first), H = int(xShape.second), K = int(idShape.second);
  const std::vector<DispatchOutput> out = dispatchReference(DispatchShape{R, BS, H, K, P}, src);
  json result = json::object();
  json perRank = json::array();
  for (const DispatchOutput& o : out) {
    perRank.push_back({{"expand_x", bf16Rows(o.expandX, std::size_t(H))},
                       {"expand_scales", o.expandScales},
                       {"expand_idx", intRows(o.expandIdx, 3)},
                       {"expert_token_nums", o.expertTokenNums},
                       {"ep_recv_counts", intRows(o.lengths, std::size_t(R))}});
  }
  result["ranks"] = std::move(perRank);
  return result;
}

json combineOpJson(const json& in) {
  jf::rejectUnknownKeys(in, "", {"ranks"});
  const json& ranks = ranksArray(in);
  const std::size_t R = ranks.size();
  std::vector<std::vector<bf16>> expandX(R), shared(R);
  std::vector<std::vector<std::int32_t>> expandIdx(R);
  std::vector<std::vector<float>> weights(R);
  std::size_t BS = 0, K = 0, H = 0;
  // Shapes first (expert_scales fixes BS and K, expand_x fixes H), then the indices.
  for (std::size_t r = 0; r < R; ++r) {
    const std::string rp = jf::index("ranks", r);
    const json& rank = jf::object(ranks[r], rp);
    jf::rejectUnknownKeys(rank, rp, {"expand_x", "expand_idx", "expert_scales", "shared_expert_x"});
    const auto ws =
        matrix<float>(jf::requiredMember(rank, rp, "expert_scales"), jf::child(rp, "expert_scales"),
                      kMaxTokens, kMaxTopk, weights[r], fp32Value);
    if (r == 0) {
      BS = ws.first;
      K = ws.second;
      require(BS > 0 && K > 0, jf::child(rp, "expert_scales"), "must not be empty");
    }
    sameShape(ws, {BS, K}, jf::child(rp, "expert_scales"), "BS x K");
    const auto xs =
        matrix<bf16>(jf::requiredMember(rank, rp, "expand_x"), jf::child(rp, "expand_x"),
                     kMaxTokens * kMaxTopk * kMaxRanks, kMaxHidden, expandX[r], bf16Value);
    const auto is = matrix<std::int32_t>(
        jf::requiredMember(rank, rp, "expand_idx"), jf::child(rp, "expand_idx"),
        kMaxTokens * kMaxTopk * kMaxRanks, 3, expandIdx[r], int32Value);
    if (H == 0 && xs.first > 0) H = xs.second;
    if (xs.first > 0)
      require(xs.second == H, jf::child(rp, "expand_x"),
              "rows must have H = " + std::to_string(H) + " values like the other ranks'");
    require(is.first == xs.first, jf::child(rp, "expand_idx"),
            "must have one row per expand_x row (" + std::to_string(xs.first) + "), got " +
                std::to_string(is.first));
    require(is.first == 0 || is.second == 3, jf::child(rp, "expand_idx"),
            "rows must be [source rank, source token, k slot]");
  }
  const json* firstShared = jf::member(ranks[0], "shared_expert_x");
  for (std::size_t r = 0; r < R; ++r) {
    const std::string rp = jf::index("ranks", r);
    const json* sx = jf::member(ranks[r], "shared_expert_x");
    require((sx == nullptr) == (firstShared == nullptr), jf::child(rp, "shared_expert_x"),
            "must be given for every rank or for none");
    if (sx == nullptr) continue;
    const auto ss = matrix<bf16>(*sx, jf::child(rp, "shared_expert_x"), kMaxTokens, kMaxHidden,
                                 shared[r], bf16Value);
    if (H == 0) H = ss.second;
    sameShape(ss, {BS, H}, jf::child(rp, "shared_expert_x"), "BS x H");
  }
  require(H > 0, "ranks", "H is unknown: no rank has an expand_x row and no shared_expert_x");
  // Every row names a real slot, and each slot is served at most once (exactly-once).
  std::vector<std::vector<std::uint8_t>> seen(R, std::vector<std::uint8_t>(BS * K, 0));
  for (std::size_t d = 0; d < R; ++d) {
    for (std::size_t row = 0; row * 3 < expandIdx[d].size(); ++row) {
      const std::string path = jf::index(jf::child(jf::index("ranks", d), "expand_idx"), row);
      const std::int32_t s = expandIdx[d][row * 3], t = expandIdx[d][row * 3 + 1],
                         k = expandIdx[d][row * 3 + 2];
      require(s >= 0 && std::size_t(s) < R, path,
              "source rank must be in [0, " + std::to_string(R) + "), got " + std::to_string(s));
      require(t >= 0 && std::size_t(t) < BS, path,
              "source token must be in [0, " + std::to_string(BS) + "), got " + std::to_string(t));
      require(k >= 0 && std::size_t(k) < K, path,
              "k slot must be in [0, " + std::to_string(K) + "), got " + std::to_string(k));
      std::uint8_t& mark = seen[std::size_t(s)][std::size_t(t) * K + std::size_t(k)];
      require(!mark, path,
              "slot (" + std::to_string(s) + ", " + std::to_string(t) + ", " + std::to_string(k) +
                  ") is served by more than one row");
      mark = 1;
    }
  }
  const auto out =
      combineExpandedReference(int(BS), int(H), int(K), expandX, expandIdx, weights,
                               firstShared ? shared : std::vector<std::vector<bf16>>{});
  json perRank = json::array();
  for (const auto& x : out) perRank.push_back({{"x", bf16Rows(x, H)}});
  return {{"ranks", std::move(perRank)}};
}

}  // namespace moe
