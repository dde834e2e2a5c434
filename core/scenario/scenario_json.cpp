// Scenario JSON reading, cross-field validation and writing. See docs/SCENARIO.md.

#include "core/scenario/scenario_json.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>

#include "core/machine/hardware_profile_json.h"
#include "core/scenario/scenario_enums.h"
#include "core/scenario/scenario_limits.h"
#include "core/util/bounded_file.h"
#include "core/util/embedded_resources.h"
#include "core/util/error.h"
#include "core/util/json_bounded.h"
#include "core/util/json_fields.h"
#include "core/util/json_strict.h"
#include "core/util/printable.h"

namespace moe {
namespace {

using nlohmann::json;
namespace jf = moe::jsonf;

template <typename E, std::size_t N>
void readEnum(const json& obj, const std::string& objPath, std::string_view key,
              const EnumName<E> (&names)[N], E& out) {
  const json* m = jf::member(obj, key);
  if (!m) return;
  const std::string path = jf::child(objPath, key);
  const std::string s = jf::string(*m, path);
  std::string list;
  for (const auto& n : names) {
    if (s == n.name) {
      out = n.value;
      return;
    }
    list += (list.empty() ? "" : ", ") + std::string(n.name);
  }
  throw InputError(path, "must be one of: " + list + " (got \"" + s + "\")");
}

// dispatch_impl: one design of the MoE layer or a named set, as the design table spells them.
void readDesignSelection(const json& obj, std::string_view key, DesignSelection& out) {
  const json* m = jf::member(obj, key);
  if (!m) return;
  const std::string path = jf::child("", key);
  const std::string s = jf::string(*m, path);
  if (const auto sel = DesignSelection::fromName(s)) {
    out = *sel;
    return;
  }
  std::string list;
  for (const std::string& n : designSelectionSpellings()) list += (list.empty() ? "" : ", ") + n;
  throw InputError(path, "must be one of: " + list + " (got \"" + s + "\")");
}

template <typename T>
void readInt(const json& obj, const std::string& objPath, std::string_view key, T& out,
             std::int64_t lo, std::int64_t hi) {
  if (const json* m = jf::member(obj, key))
    out = static_cast<T>(jf::boundedInteger(*m, jf::child(objPath, key), lo, hi));
}

void readNumber(const json& obj, const std::string& objPath, std::string_view key, double& out,
                double lo, double hi) {
  if (const json* m = jf::member(obj, key))
    out = jf::boundedNumber(*m, jf::child(objPath, key), lo, hi);
}

// Any uint64: a seed copied from a log must be accepted whatever its top bit.
std::uint64_t readSeed(const json& j, const std::string& path) {
  require(j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0), path,
          "must be an integer in [0, 18446744073709551615]");
  return j.get<std::uint64_t>();
}

// A float written as the shortest decimal that reads back as the same float, so a threshold
// typed as 0.1 is saved as 0.1, not 0.10000000149011612. from_chars/to_chars ignore the
// C locale (the Qt app sets one).
double floatForJson(float f) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, f).ptr;
  double d = 0.0;
  std::from_chars(buf, end, d);
  return d;
}

const json& objectMember(const json& obj, std::string_view key, const std::string& path) {
  return jf::object(obj.at(std::string(key)), path);
}

void readHardware(const json& h, Scenario& s) {
  const std::string base = "hardware";
  jf::object(h, base);
  jf::rejectUnknownKeys(h, base, {"profile", "overrides"});
  if (const json* m = jf::member(h, "profile"))
    s.profileName = jf::string(*m, "hardware.profile", 256);
  s.hardware = builtinProfile(s.profileName);
  if (const json* o = jf::member(h, "overrides")) {
    const std::string opath = "hardware.overrides";
    jf::object(*o, opath);
    for (auto it = o->begin(); it != o->end(); ++it) {
      if (it->is_null()) continue;  // null means absent, as everywhere in the schema
      applyProfileField(s.hardware, it.key(), *it, jf::child(opath, it.key()));
    }
  }
}

// A stage's tiling fields (the caller has rejected unknown keys).
void readRingTiling(const json& r, const std::string& p, RingTiling& t) {
  readInt(r, p, "chunk_bytes", t.chunkBytes, 32, kMaxChunkBytes);
  readInt(r, p, "queue_chunks", t.queueChunks, 1, 4096);
  readInt(r, p, "sender_cores", t.senderCores, 1, 128);
  readInt(r, p, "forwarder_cores", t.forwarderCores, 1, 128);
  readInt(r, p, "receiver_cores", t.receiverCores, 1, 128);
}

json ringTilingJson(const RingTiling& t) {
  return {{"chunk_bytes", t.chunkBytes},
          {"queue_chunks", t.queueChunks},
          {"sender_cores", t.senderCores},
          {"forwarder_cores", t.forwarderCores},
          {"receiver_cores", t.receiverCores}};
}

// Each section's reader; the caller has seen the section's key.
void readCluster(const json& j, Scenario& s) {
  const json& c = objectMember(j, "cluster", "cluster");
  jf::rejectUnknownKeys(c, "cluster", {"servers", "cards_per_server"});
  readInt(c, "cluster", "servers", s.cluster.servers, 1, 96);
  readInt(c, "cluster", "cards_per_server", s.cluster.cardsPerServer, 1, 64);
}

void readModel(const json& j, Scenario& s) {
  const json& m = objectMember(j, "model", "model");
  jf::rejectUnknownKeys(
      m, "model",
      {"tokens_per_rank", "hidden", "experts", "topk", "intermediate", "dispatch_dtype"});
  readInt(m, "model", "tokens_per_rank", s.model.tokensPerRank, 1, kMaxTokensPerRank);
  readInt(m, "model", "hidden", s.model.hidden, 1, 16384);
  readInt(m, "model", "experts", s.model.experts, 1, 1024);
  readInt(m, "model", "topk", s.model.topk, 1, 16);
  readInt(m, "model", "intermediate", s.model.intermediate, 1, 65536);
  readEnum(m, "model", "dispatch_dtype", kDtypeNames, s.model.dispatchDtype);
}

void readRouting(const json& j, Scenario& s) {
  const std::string p = "routing";
  const json& r = objectMember(j, "routing", p);
  jf::rejectUnknownKeys(r, p,
                        {"distribution", "alpha", "hotspot_fraction", "hotspot_experts", "groups",
                         "topk_groups", "trace_file"});
  readEnum(r, p, "distribution", kRoutingNames, s.routing.kind);
  readNumber(r, p, "alpha", s.routing.alpha, 0.0, 10.0);
  readNumber(r, p, "hotspot_fraction", s.routing.hotspotFraction, 0.0, 1.0);
  readInt(r, p, "hotspot_experts", s.routing.hotspotExperts, 1, 1024);
  readInt(r, p, "groups", s.routing.groups, 1, 1024);
  readInt(r, p, "topk_groups", s.routing.topkGroups, 1, 1024);
  if (const json* t = jf::member(r, "trace_file"))
    s.routing.traceFile = jf::string(*t, "routing.trace_file");
}

void readEplb(const json& j, Scenario& s) {
  const std::string p = "eplb";
  const json& e = objectMember(j, "eplb", p);
  jf::rejectUnknownKeys(e, p,
                        {"place_per_rank", "redundant_experts", "table_from", "groups",
                         "balance_mode", "table", "pruning_threshold", "active_tokens"});
  readInt(e, p, "place_per_rank", s.eplb.placePerRank, 0, kMaxPhysicalExperts);
  readInt(e, p, "redundant_experts", s.eplb.redundantExperts, 0, kMaxPhysicalExperts);
  readEnum(e, p, "table_from", kTableSourceNames, s.eplb.tableFrom);
  readInt(e, p, "groups", s.eplb.groups, 1, kMaxPhysicalExperts);
  readInt(e, p, "balance_mode", s.eplb.balanceMode, 0, 1);
  if (const json* t = jf::member(e, "table")) {
    // Only shape and int32 range here; the instance ids' meaning is checked by the
    // MoeUpdateExpert validator, which names the same rules as the real kernel.
    const auto rows = jf::intMatrix(*t, "eplb.table", 1024, kMaxRanks + 1,
                                    std::numeric_limits<std::int32_t>::min(),
                                    std::numeric_limits<std::int32_t>::max());
    s.eplb.table.clear();
    for (const auto& row : rows) s.eplb.table.emplace_back(row.begin(), row.end());
  }
  if (const json* t = jf::member(e, "pruning_threshold")) {
    const json& a = jf::array(*t, "eplb.pruning_threshold", 16);
    s.eplb.pruningThreshold.clear();
    for (std::size_t i = 0; i < a.size(); ++i)
      s.eplb.pruningThreshold.push_back(static_cast<float>(
          jf::boundedNumber(a[i], jf::index("eplb.pruning_threshold", i), 0.0, 1.0)));
  }
  readInt(e, p, "active_tokens", s.eplb.activeTokens, -1, kMaxTokensPerRank);
}

void readRings(const json& j, Scenario& s) {
  const std::string p = "rings";
  const json& r = objectMember(j, "rings", p);
  jf::rejectUnknownKeys(r, p,
                        {"chunk_bytes", "queue_chunks", "sender_cores", "forwarder_cores",
                         "receiver_cores", "dispatch", "combine"});
  // The flat fields set both stages; a stage's own object then overrides them.
  RingTiling both = s.rings.dispatch;
  readRingTiling(r, p, both);
  s.rings.setBoth(both);
  for (auto [key, tiling] :
       {std::pair{"dispatch", &s.rings.dispatch}, std::pair{"combine", &s.rings.combine}}) {
    if (!jf::member(r, key)) continue;
    const std::string sp = p + "." + key;
    const json& stage = objectMember(r, key, sp);
    jf::rejectUnknownKeys(
        stage, sp,
        {"chunk_bytes", "queue_chunks", "sender_cores", "forwarder_cores", "receiver_cores"});
    readRingTiling(stage, sp, *tiling);
  }
}

void readCombine(const json& j, Scenario& s) {
  const std::string p = "combine";
  const json& c = objectMember(j, "combine", p);
  jf::rejectUnknownKeys(c, p,
                        {"shared_expert", "add_rms_norm", "rms_eps", "rdma_batch_bytes",
                         "partial_dtype", "ub_window_rows", "sum_local_experts"});
  if (const json* m = jf::member(c, "shared_expert"))
    s.combine.sharedExpert = jf::boolean(*m, jf::child(p, "shared_expert"));
  if (const json* m = jf::member(c, "add_rms_norm"))
    s.combine.addRmsNorm = jf::boolean(*m, jf::child(p, "add_rms_norm"));
  readNumber(c, p, "rms_eps", s.combine.rmsEps, 1e-12, 1.0);
  readInt(c, p, "rdma_batch_bytes", s.combine.rdmaBatchBytes, 0, kMaxChunkBytes);
  readEnum(c, p, "partial_dtype", kPartialDtypeNames, s.combine.partialDtype);
  readInt(c, p, "ub_window_rows", s.combine.ubWindowRows, 0, 4096);
  if (const json* m = jf::member(c, "sum_local_experts"))
    s.combine.sumLocalExperts = jf::boolean(*m, jf::child(p, "sum_local_experts"));
}

void readWorkload(const json& j, Scenario& s) {
  const std::string p = "workload";
  const json& w = objectMember(j, "workload", p);
  jf::rejectUnknownKeys(w, p,
                        {"kind", "ranks", "m", "n", "k", "tile_m", "tile_n", "tile_k", "stages"});
  readEnum(w, p, "kind", kWorkloadNames, s.workload.kind);
  readInt(w, p, "ranks", s.workload.ranks, 2, kMaxRanks);
  readInt(w, p, "m", s.workload.m, 1, kMaxMatrixDim);
  readInt(w, p, "n", s.workload.n, 1, kMaxMatrixDim);
  readInt(w, p, "k", s.workload.k, 1, kMaxMatrixDim);
  readInt(w, p, "tile_m", s.workload.tileM, 1, kMaxMatrixDim);
  readInt(w, p, "tile_n", s.workload.tileN, 1, kMaxMatrixDim);
  readInt(w, p, "tile_k", s.workload.tileK, 1, kMaxMatrixDim);
  readInt(w, p, "stages", s.workload.stages, 1, 8);
}

}  // namespace

Scenario scenarioFromJson(const json& j) {
  jf::object(j, "");
  jf::rejectUnknownKeys(
      j, "",
      {"name", "seed", "hardware", "cluster", "model", "routing", "eplb", "rings", "combine",
       "payload", "dispatch_impl", "event_log_capacity", "bandwidth_update_ns", "workload"});
  Scenario s;
  if (const json* m = jf::member(j, "name")) s.name = jf::string(*m, "name", 256);
  // Reports print the name: a newline in it could print a fake result line.
  require(isPrintable(s.name), "name",
          "must hold printable characters only (no control character)");
  if (const json* m = jf::member(j, "seed")) s.seed = readSeed(*m, "seed");

  // The profile comes first: cross-field rules compare against it whatever the key order.
  if (const json* h = jf::member(j, "hardware"))
    readHardware(*h, s);
  else
    s.hardware = builtinProfile(s.profileName);

  if (jf::member(j, "cluster")) readCluster(j, s);
  if (jf::member(j, "model")) readModel(j, s);
  if (jf::member(j, "routing")) readRouting(j, s);
  if (jf::member(j, "eplb")) readEplb(j, s);
  if (jf::member(j, "rings")) readRings(j, s);
  if (jf::member(j, "combine")) readCombine(j, s);

  readEnum(j, "", "payload", kPayloadNames, s.payload);
  readDesignSelection(j, "dispatch_impl", s.dispatchImpl);
  readInt(j, "", "event_log_capacity", s.eventLogCapacity, 1024, std::int64_t{1} << 26);
  readInt(j, "", "bandwidth_update_ns", s.bandwidthUpdateNs, 0, 10000);

  if (jf::member(j, "workload")) readWorkload(j, s);

  validateScenario(s);
  return s;
}

json scenarioToJson(const Scenario& s) {
  json overrides = json::object();
  const json current = profileToJson(s.hardware);
  const json reference = profileToJson(builtinProfile(s.profileName));
  for (const auto& key : HardwareProfile::fieldNames())
    if (current.at(key) != reference.at(key)) overrides[key] = current.at(key);

  json thresholds = json::array();
  for (float t : s.eplb.pruningThreshold) thresholds.push_back(floatForJson(t));

  json j;
  j["name"] = s.name;
  j["seed"] = s.seed;
  j["hardware"] = {{"profile", s.profileName}, {"overrides", overrides}};
  j["cluster"] = {{"servers", s.cluster.servers}, {"cards_per_server", s.cluster.cardsPerServer}};
  j["model"] = {{"tokens_per_rank", s.model.tokensPerRank},
                {"hidden", s.model.hidden},
                {"experts", s.model.experts},
                {"topk", s.model.topk},
                {"intermediate", s.model.intermediate},
                {"dispatch_dtype", toString(s.model.dispatchDtype)}};
  j["routing"] = {{"distribution", toString(s.routing.kind)},
                  {"alpha", s.routing.alpha},
                  {"hotspot_fraction", s.routing.hotspotFraction},
                  {"hotspot_experts", s.routing.hotspotExperts},
                  {"groups", s.routing.groups},
                  {"topk_groups", s.routing.topkGroups},
                  {"trace_file", s.routing.traceFile}};
  j["eplb"] = {{"place_per_rank", s.eplb.placePerRank},
               {"redundant_experts", s.eplb.redundantExperts},
               {"table_from", enumName(kTableSourceNames, s.eplb.tableFrom)},
               {"groups", s.eplb.groups},
               {"balance_mode", s.eplb.balanceMode},
               {"table", s.eplb.table.empty() ? json::array() : json(s.eplb.table)},
               {"pruning_threshold", thresholds},
               {"active_tokens", s.eplb.activeTokens}};
  // One tiling for both stages is written flat, as files from before the split were (so
  // their hash, and a sweep's resume check, do not change).
  if (s.rings.same())
    j["rings"] = ringTilingJson(s.rings.dispatch);
  else
    j["rings"] = {{"dispatch", ringTilingJson(s.rings.dispatch)},
                  {"combine", ringTilingJson(s.rings.combine)}};
  j["combine"] = {{"shared_expert", s.combine.sharedExpert},
                  {"add_rms_norm", s.combine.addRmsNorm},
                  {"rms_eps", s.combine.rmsEps},
                  {"rdma_batch_bytes", s.combine.rdmaBatchBytes},
                  {"partial_dtype", toString(s.combine.partialDtype)},
                  {"ub_window_rows", s.combine.ubWindowRows},
                  {"sum_local_experts", s.combine.sumLocalExperts}};
  j["payload"] = toString(s.payload);
  j["dispatch_impl"] = std::string(s.dispatchImpl.name());
  j["event_log_capacity"] = s.eventLogCapacity;
  j["bandwidth_update_ns"] = s.bandwidthUpdateNs;
  j["workload"] = {{"kind", toString(s.workload.kind)},
                   {"ranks", s.workload.ranks},
                   {"m", s.workload.m},
                   {"n", s.workload.n},
                   {"k", s.workload.k},
                   {"tile_m", s.workload.tileM},
                   {"tile_n", s.workload.tileN},
                   {"tile_k", s.workload.tileK},
                   {"stages", s.workload.stages}};
  return j;
}

Scenario loadScenarioFile(const std::string& path) {
  const std::string text = readBoundedFile(path, kMaxScenarioFileBytes, path);
  Scenario sc = scenarioFromJson(parseJsonStrict(text, path));
  // A relative trace path means "next to this scenario", so a scenario and its trace can
  // move together and run from any working directory.
  std::filesystem::path trace(sc.routing.traceFile);
  if (!sc.routing.traceFile.empty() && trace.is_relative())
    sc.routing.traceFile = (std::filesystem::path(path).parent_path() / trace).string();
  return sc;
}

Scenario defaultScenario() {
  const auto text = embeddedFile("scenarios/default.json");
  require(text.has_value(), "resources/scenarios/default.json", "is not embedded");
  return scenarioFromJson(json::parse(*text));
}

}  // namespace moe
