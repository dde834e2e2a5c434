#include "core/reference/gating.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/reference/token_router.h"
#include "core/util/bf16.h"
#include "core/util/bounded_file.h"
#include "core/util/error.h"
#include "core/util/npy.h"
#include "core/util/parallel_map.h"
#include "core/util/rng.h"

namespace moe {
namespace {

constexpr const char* kTracePath = "routing.trace_file";
// Monte Carlo size and seed of expectedExpertLoad: fixed, so the estimate (and any EPLB table
// built from it) is reproducible. 20000 tokens put the standard error of a share near 0.3%.
constexpr int kLoadSamples = 20000;
constexpr std::uint64_t kLoadSeed = 0x6c6f61645f6d63ull;

struct Shape {
  int ranks, tokens, hidden, experts, topk;
};

Shape validatedShape(const Scenario& s) {
  const ModelShape& m = s.model;
  require(s.cluster.ranks() >= 1, "cluster", "must have at least one rank");
  require(m.tokensPerRank >= 0, "model.tokens_per_rank", "must be >= 0");
  require(m.hidden >= 0, "model.hidden", "must be >= 0");
  require(m.experts >= 1, "model.experts", "must be >= 1");
  require(m.topk >= 1 && m.topk <= m.experts, "model.topk",
          "must be in [1, model.experts] (" + std::to_string(m.experts) + ")");
  return {s.cluster.ranks(), m.tokensPerRank, m.hidden, m.experts, m.topk};
}

void validateRouting(const Scenario& s, const Shape& sh) {
  const RoutingConfig& r = s.routing;
  switch (r.kind) {
    case RoutingKind::Uniform:
    case RoutingKind::Trace:
      break;
    case RoutingKind::PowerLaw:
      require(std::isfinite(r.alpha) && r.alpha >= 0, "routing.alpha", "must be finite and >= 0");
      break;
    case RoutingKind::Hotspot:
      require(r.hotspotExperts >= 1 && r.hotspotExperts <= sh.experts, "routing.hotspot_experts",
              "must be in [1, model.experts]");
      // Every expert needs positive mass: log(0) would make experts unselectable and, with
      // K > hot experts, force zero-weight slots.
      if (r.hotspotExperts < sh.experts) {
        require(r.hotspotFraction > 0 && r.hotspotFraction < 1, "routing.hotspot_fraction",
                "must be in (0, 1) when not every expert is hot");
      }
      break;
    case RoutingKind::GroupLimited: {
      require(r.groups >= 1 && sh.experts % r.groups == 0, "routing.groups",
              "must be >= 1 and divide model.experts (" + std::to_string(sh.experts) + ")");
      const int perGroup = sh.experts / r.groups;
      require(r.topkGroups >= 1 && r.topkGroups <= r.groups, "routing.topk_groups",
              "must be in [1, routing.groups]");
      require(static_cast<long long>(r.topkGroups) * perGroup >= sh.topk, "routing.topk_groups",
              "topk_groups x experts per group must be >= model.topk");
      break;
    }
  }
}

std::vector<int> seededPermutation(std::uint64_t seed, int n) {
  std::vector<int> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  Rng rng(Rng::derive(seed, kPopularityStream));
  for (int i = n - 1; i > 0; --i) {
    const auto j = static_cast<int>(rng.below(static_cast<std::uint64_t>(i) + 1));
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  return perm;
}

std::vector<double> popularity(const Scenario& s, const Shape& sh) {
  const RoutingConfig& r = s.routing;
  const auto e = static_cast<std::size_t>(sh.experts);
  std::vector<double> p(e, 1.0 / static_cast<double>(e));
  if (r.kind == RoutingKind::PowerLaw) {
    const std::vector<int> perm = seededPermutation(s.seed, sh.experts);
    double sum = 0;
    for (std::size_t i = 0; i < e; ++i) {
      const double w = std::pow(static_cast<double>(i + 1), -r.alpha);
      p[static_cast<std::size_t>(perm[i])] = w;
      sum += w;
    }
    for (double& v : p) v /= sum;
  } else if (r.kind == RoutingKind::Hotspot && r.hotspotExperts < sh.experts) {
    const std::vector<int> perm = seededPermutation(s.seed, sh.experts);
    const auto hot = static_cast<std::size_t>(r.hotspotExperts);
    for (std::size_t i = 0; i < e; ++i) {
      p[static_cast<std::size_t>(perm[i])] =
          i < hot ? r.hotspotFraction / static_cast<double>(hot)
                  : (1 - r.hotspotFraction) / static_cast<double>(e - hot);
    }
  }
  return p;
}

// The router for a scenario's routing (group limits only for group-limited routing).
TokenRouter routerFor(const Scenario& s, const Shape& sh) {
  const bool limited = s.routing.kind == RoutingKind::GroupLimited;
  return TokenRouter(popularity(s, sh), sh.topk, limited ? s.routing.groups : 1,
                     limited ? s.routing.topkGroups : 1);
}

// ---- trace files ----

struct Trace {
  std::vector<std::int32_t> ids;  // rows * K
  std::size_t rows = 0;
};

[[noreturn]] void traceError(const std::string& rule) {
  throw InputError(kTracePath, rule);
}

// Appends one token's ids after checking range and distinctness; `where` locates the row in
// the file for the message ("line 7", "row 3").
void addTraceRow(Trace& t, const std::vector<long long>& row, int experts,
                 const std::string& where) {
  for (std::size_t j = 0; j < row.size(); ++j) {
    if (row[j] < 0 || row[j] >= experts) {
      traceError(where + ": expert id " + std::to_string(row[j]) + " is outside [0, " +
                 std::to_string(experts) + ")");
    }
    for (std::size_t i = 0; i < j; ++i) {
      if (row[i] == row[j]) {
        traceError(where + ": expert id " + std::to_string(row[j]) + " appears twice");
      }
    }
  }
  for (long long v : row) t.ids.push_back(static_cast<std::int32_t>(v));
  ++t.rows;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// Parses CSV text already read (bounded) from `file`. Errors name the file, line and column;
// the only file content they show is a short printable excerpt of the offending line.
Trace readCsvTrace(const std::string& csv, const std::string& file, const Shape& sh) {
  Trace t;
  std::vector<long long> row;
  long long lineNo = 0;
  for (std::size_t lineStart = 0; lineStart < csv.size();) {
    const std::size_t nl = csv.find('\n', lineStart);
    const std::string_view line = std::string_view(csv).substr(
        lineStart, nl == std::string::npos ? std::string::npos : nl - lineStart);
    lineStart = nl == std::string::npos ? csv.size() : nl + 1;
    ++lineNo;
    const std::string text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    const std::size_t indent = line.find_first_not_of(" \t\r");
    const std::string where = file + " line " + std::to_string(lineNo);
    row.clear();
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = text.find(',', start);
      const std::string field = trim(std::string_view(text).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start));
      long long v = 0;
      const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
      if (field.empty() || ec != std::errc() || end != field.data() + field.size()) {
        traceError(where + ", column " + std::to_string(indent + start + 1) + ": '" +
                   printableExcerpt(field, 20) + "' is not an integer (line: \"" +
                   printableExcerpt(text) + "\")");
      }
      row.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (static_cast<int>(row.size()) != sh.topk) {
      traceError(where + ": has " + std::to_string(row.size()) + " ids, model.topk is " +
                 std::to_string(sh.topk));
    }
    addTraceRow(t, row, sh.experts, where);
  }
  return t;
}

Trace readNpyTrace(const std::string& file, const Shape& sh) {
  NpyArray a;
  try {
    a = readNpy(file);
  } catch (const InputError& e) {
    traceError(e.what());  // already "file: rule"; re-homed under the scenario field
  }
  if (a.dtype != "<i4" && a.dtype != "<i8") {
    traceError(file + ": dtype " + a.dtype + " is not int32 or int64");
  }
  const std::size_t k = static_cast<std::size_t>(sh.topk);
  const bool flat = a.shape.size() == 2;
  const bool perRank = a.shape.size() == 3 && a.shape[0] == static_cast<std::size_t>(sh.ranks) &&
                       a.shape[1] == static_cast<std::size_t>(sh.tokens);
  if (!flat && !perRank) {
    traceError(file + ": shape must be [R*BS, K] or [R=" + std::to_string(sh.ranks) +
               ", BS=" + std::to_string(sh.tokens) + ", K]");
  }
  if (a.shape.back() != k) {
    traceError(file + ": rows have " + std::to_string(a.shape.back()) + " ids, model.topk is " +
               std::to_string(sh.topk));
  }
  std::vector<long long> values;
  if (a.dtype == "<i4") {
    for (std::int32_t v : a.as<std::int32_t>()) values.push_back(v);
  } else {
    for (std::int64_t v : a.as<std::int64_t>()) values.push_back(v);
  }
  Trace t;
  std::vector<long long> row(k);
  for (std::size_t r = 0; r < values.size() / k; ++r) {
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(r * k), k, row.begin());
    addTraceRow(t, row, sh.experts, file + " row " + std::to_string(r));
  }
  return t;
}

Trace readTrace(const Scenario& s, const Shape& sh) {
  const std::string& file = s.routing.traceFile;
  if (file.empty()) traceError("is empty but routing is trace");
  // Regular files under the cap only: a FIFO or /dev/zero must not hang or fill memory.
  const std::string bytes = readBoundedFile(file, kMaxTraceFileBytes, kTracePath);
  // Sniff the npy magic rather than trusting the extension.
  const bool isNpy = bytes.compare(0, 6, "\x93NUMPY") == 0;
  const Trace t = isNpy ? readNpyTrace(file, sh) : readCsvTrace(bytes, file, sh);
  if (t.rows == 0) traceError("'" + file + "' holds no token rows");
  // Every token of the run takes its own row. Repeating a short trace would route tokens
  // the file never described, with nothing in the report to say so; surplus rows are
  // fine (the warm-up batch reads the rows after the run's).
  const std::size_t tokens =
      static_cast<std::size_t>(sh.ranks) * static_cast<std::size_t>(sh.tokens);
  if (t.rows < tokens) {
    traceError("'" + file + "' holds " + std::to_string(t.rows) +
               " token rows, fewer than the run's " + std::to_string(tokens) +
               " tokens (cluster ranks x model.tokens_per_rank = " + std::to_string(sh.ranks) +
               " x " + std::to_string(sh.tokens) + "); give one row per token");
  }
  return t;
}

}  // namespace

std::vector<double> expertPopularity(const Scenario& scenario) {
  const Shape sh = validatedShape(scenario);
  require(scenario.routing.kind != RoutingKind::Trace, "routing.distribution",
          "trace routing has no popularity vector");
  validateRouting(scenario, sh);
  return popularity(scenario, sh);
}

void checkRoutingTrace(const Scenario& scenario) {
  if (scenario.routing.kind != RoutingKind::Trace) return;
  const Shape sh = validatedShape(scenario);
  validateRouting(scenario, sh);
  readTrace(scenario, sh);
}

std::vector<RankGating> generateGating(const Scenario& scenario) {
  const Shape sh = validatedShape(scenario);
  validateRouting(scenario, sh);
  const bool isTrace = scenario.routing.kind == RoutingKind::Trace;
  const Trace trace = isTrace ? readTrace(scenario, sh) : Trace{};
  std::optional<TokenRouter> router;
  if (!isTrace) router.emplace(routerFor(scenario, sh));

  const auto bs = static_cast<std::size_t>(sh.tokens);
  const auto k = static_cast<std::size_t>(sh.topk);
  // Each rank draws from its own stream (Rng::derive), so ranks are generated on the
  // spare cores, each with its own router scratch, and come out the same in any order.
  auto rankGating = [&](std::size_t rank) {
    const int r = static_cast<int>(rank);
    RankGating g;
    std::optional<TokenRouter> tokenRouter = router;
    std::vector<float> scores(k);
    Rng rng(Rng::derive(scenario.seed, static_cast<std::uint64_t>(r)));
    g.topkIds.resize(bs * k);
    g.topkWeights.resize(bs * k);
    // Routing first, then x: the ids do not depend on whether the payload is generated.
    for (std::size_t i = 0; i < bs; ++i) {
      std::int32_t* ids = g.topkIds.data() + i * k;
      float* weights = g.topkWeights.data() + i * k;
      if (isTrace) {
        const std::size_t row = static_cast<std::size_t>(r) * bs + i;  // < rows: readTrace
        std::copy_n(trace.ids.begin() + static_cast<std::ptrdiff_t>(row * k), k, ids);
        for (float& v : scores) v = static_cast<float>(rng.normal());
        std::sort(scores.begin(), scores.end(), std::greater<>());
        softmaxInto(scores.data(), sh.topk, weights);
      } else {
        tokenRouter->route(rng, ids, weights);
      }
    }
    if (scenario.payload == PayloadMode::Full) {
      g.x.resize(bs * static_cast<std::size_t>(sh.hidden));
      for (std::size_t i = 0; i < g.x.size(); i += 2) {
        double a, b;
        rng.normalPair(a, b);
        g.x[i] = floatToBf16(static_cast<float>(a));
        if (i + 1 < g.x.size()) g.x[i + 1] = floatToBf16(static_cast<float>(b));
      }
    }
    return g;
  };
  const auto ranks = static_cast<std::size_t>(sh.ranks);
  std::vector<std::optional<RankGating>> made =
      parallelMap<RankGating>(ranks, rankGating, {resolveThreadCount(0, ranks), {}, nullptr});
  std::vector<RankGating> out;
  out.reserve(ranks);
  for (std::optional<RankGating>& g : made) out.push_back(std::move(*g));
  return out;
}

std::vector<double> expectedExpertLoad(const Scenario& scenario) {
  const Shape sh = validatedShape(scenario);
  validateRouting(scenario, sh);
  const auto e = static_cast<std::size_t>(sh.experts);
  const auto k = static_cast<std::size_t>(sh.topk);
  std::vector<double> load(e, 0.0);

  if (scenario.routing.kind == RoutingKind::Trace) {
    const Trace trace = readTrace(scenario, sh);
    const std::size_t used =
        static_cast<std::size_t>(sh.ranks) * static_cast<std::size_t>(sh.tokens);
    const std::size_t tokens = used > 0 ? used : trace.rows;
    for (std::size_t t = 0; t < tokens; ++t) {
      const std::size_t row = t % trace.rows;
      for (std::size_t j = 0; j < k; ++j)
        load[static_cast<std::size_t>(trace.ids[row * k + j])] += 1;
    }
    for (double& v : load) v /= static_cast<double>(tokens * k);
    return load;
  }

  const std::vector<double> p = popularity(scenario, sh);
  if (std::all_of(p.begin(), p.end(), [&](double v) { return v == p[0]; })) {
    // Equal popularity is symmetric under relabelling, group limits included: exactly 1/E.
    std::fill(load.begin(), load.end(), 1.0 / static_cast<double>(e));
    return load;
  }
  TokenRouter router = routerFor(scenario, sh);
  Rng rng(kLoadSeed);
  std::vector<std::int32_t> ids(k);
  std::vector<float> weights(k);
  for (int t = 0; t < kLoadSamples; ++t) {
    router.route(rng, ids.data(), weights.data());
    for (std::int32_t id : ids) load[static_cast<std::size_t>(id)] += 1;
  }
  for (double& v : load) v /= static_cast<double>(kLoadSamples) * static_cast<double>(k);
  return load;
}

std::vector<double> warmupExpertLoad(const Scenario& scenario) {
  const Shape sh = validatedShape(scenario);
  validateRouting(scenario, sh);
  const auto k = static_cast<std::size_t>(sh.topk);
  const std::size_t tokens =
      static_cast<std::size_t>(sh.ranks) * static_cast<std::size_t>(sh.tokens);
  std::vector<double> load(static_cast<std::size_t>(sh.experts), 0.0);
  if (scenario.routing.kind == RoutingKind::Trace) {
    const Trace trace = readTrace(scenario, sh);
    for (std::size_t t = tokens; t < 2 * tokens; ++t) {
      const std::size_t row = t % trace.rows;
      for (std::size_t j = 0; j < k; ++j)
        load[static_cast<std::size_t>(trace.ids[row * k + j])] += 1;
    }
    return load;
  }
  TokenRouter router = routerFor(scenario, sh);
  std::vector<std::int32_t> ids(k);
  std::vector<float> weights(k);
  for (int r = 0; r < sh.ranks; ++r) {
    Rng rng(Rng::derive(scenario.seed, kWarmupStream + static_cast<std::uint64_t>(r)));
    for (int i = 0; i < sh.tokens; ++i) {
      router.route(rng, ids.data(), weights.data());
      for (std::int32_t id : ids) load[static_cast<std::size_t>(id)] += 1;
    }
  }
  return load;
}

}  // namespace moe
