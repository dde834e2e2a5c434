// Built-in hardware profiles (parsed from the embedded resources/profiles/*.json) and the
// range-checked JSON mapping of every profile field.

#include "core/machine/hardware_profile.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <variant>

#include "core/machine/hardware_profile_json.h"
#include "core/util/embedded_resources.h"
#include "core/util/error.h"
#include "core/util/json_bounded.h"
#include "core/util/json_fields.h"

namespace moe {
namespace {

using nlohmann::json;

enum class Rule { Range, Positive, PowerOfTwo, Fabric };

using Member = std::variant<int HardwareProfile::*, std::int64_t HardwareProfile::*,
                            double HardwareProfile::*, std::string HardwareProfile::*>;

struct Field {
  std::string_view key;
  Member member;
  Rule rule;
  std::int64_t lo = 0;  // integer fields: inclusive range
  std::int64_t hi = 0;
};

constexpr std::int64_t kMaxCores = 128;
constexpr std::int64_t kMaxOnChipBytes = std::int64_t{1} << 30;  // 1 GiB: far above any UB/L1
constexpr std::int64_t kMaxHbmBytes = std::int64_t{1} << 44;     // 16 TiB
constexpr std::int64_t kMaxLatencyNs = 1000000000;               // 1 s
constexpr double kMaxGBps = 100000.0;
// The slowest link the model accepts: 1 MB/s. Slower is no real machine and, down in the
// subnormals, loses all precision; a workload too large for a slow link still accepted
// here stops at the cap on emulated time (core/engine/time.h) with exit 2.
constexpr double kMinGBps = 0.001;

using HP = HardwareProfile;

// The table is the single list of fields: fieldNames(), applyProfileField() and
// profileToJson() all walk it, so a new field is one line here (plus the struct member).
const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      {"fabric", &HP::fabric, Rule::Fabric},
      {"aic_cores", &HP::aicCores, Rule::Range, 1, kMaxCores},
      {"aiv_cores", &HP::aivCores, Rule::Range, 1, kMaxCores},
      {"ub_bytes", &HP::ubBytes, Rule::Range, 1, kMaxOnChipBytes},
      {"l1_bytes", &HP::l1Bytes, Rule::Range, 1, kMaxOnChipBytes},
      {"l0a_bytes", &HP::l0aBytes, Rule::Range, 1, kMaxOnChipBytes},
      {"l0b_bytes", &HP::l0bBytes, Rule::Range, 1, kMaxOnChipBytes},
      {"l0c_bytes", &HP::l0cBytes, Rule::Range, 1, kMaxOnChipBytes},
      {"clock_mhz", &HP::clockMhz, Rule::Range, 1, 10000},
      {"cube_macs_per_cycle", &HP::cubeMacsPerCycle, Rule::Range, 1, 1 << 20},
      {"vector_bytes_per_cycle", &HP::vectorBytesPerCycle, Rule::Range, 1, 1 << 16},
      {"hbm_bytes", &HP::hbmBytes, Rule::Range, 1, kMaxHbmBytes},
      {"hbm_gbps", &HP::hbmGBps, Rule::Positive},
      {"cards_per_server", &HP::cardsPerServer, Rule::Range, 1, 64},
      {"hccs_gbps_per_pair", &HP::hccsGBpsPerPair, Rule::Positive},
      {"port_gbps", &HP::portGBps, Rule::Positive},
      {"hccs_latency_ns", &HP::hccsLatencyNs, Rule::Range, 0, kMaxLatencyNs},
      {"nic_gbps", &HP::nicGBps, Rule::Positive},
      {"rdma_latency_ns", &HP::rdmaLatencyNs, Rule::Range, 0, kMaxLatencyNs},
      {"rdma_post_ns", &HP::rdmaPostNs, Rule::Range, 0, kMaxLatencyNs},
      {"mte_gbps_per_core", &HP::mteGBpsPerCore, Rule::Positive},
      {"dma_align_bytes", &HP::dmaAlignBytes, Rule::PowerOfTwo, 1, 4096},
      {"gm_latency_ns", &HP::gmLatencyNs, Rule::Range, 0, kMaxLatencyNs},
      {"poll_latency_ns", &HP::pollLatencyNs, Rule::Range, 0, kMaxLatencyNs},
      {"sync_all_ns", &HP::syncAllNs, Rule::Range, 0, kMaxLatencyNs},
  };
  return table;
}

const Field* findField(std::string_view key) {
  for (const auto& f : fields())
    if (f.key == key) return &f;
  return nullptr;
}

constexpr std::string_view kProfileFolder = "profiles/";
constexpr std::string_view kJson = ".json";

// Every embedded resources/profiles/*.json is a built-in profile, named by its file.
const std::vector<std::string>& builtinNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const EmbeddedFile& f : embeddedFiles())
      if (f.name.starts_with(kProfileFolder) && f.name.ends_with(kJson))
        v.emplace_back(f.name.substr(kProfileFolder.size(),
                                     f.name.size() - kProfileFolder.size() - kJson.size()));
    std::sort(v.begin(), v.end());
    return v;
  }();
  return names;
}

std::string builtinList() {
  std::string list;
  for (const auto& n : builtinNames()) list += (list.empty() ? "" : ", ") + n;
  return list;
}

// The parsed profile document; parsed once, since the embedded text never changes.
const json& profileDocument(const std::string& name) {
  static const std::map<std::string, json> docs = [] {
    std::map<std::string, json> m;
    for (const auto& n : builtinNames())
      m[n] = json::parse(*embeddedFile(std::string(kProfileFolder) + n + std::string(kJson)));
    return m;
  }();
  auto it = docs.find(name);
  if (it == docs.end())
    throw InputError("hardware.profile",
                     "must be one of: " + builtinList() + " (got \"" + name + "\")");
  return it->second;
}

}  // namespace

const std::vector<std::string>& HardwareProfile::fieldNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& f : fields()) v.emplace_back(f.key);
    return v;
  }();
  return names;
}

std::vector<std::string> builtinProfileNames() {
  return builtinNames();
}

HardwareProfile builtinProfile(const std::string& name) {
  const json& doc = profileDocument(name);
  // The data file, not the struct defaults, is the source of truth: every field must be
  // present, so a profile cannot silently inherit the 910B3 numbers.
  const std::string base = "resources/profiles/" + name + ".json:fields";
  const json& fs = jsonf::object(jsonf::requiredMember(doc, "", "fields"), base);
  HardwareProfile p;
  p.name = name;
  const std::string productPath = "resources/profiles/" + name + ".json:product";
  const json& product = jsonf::object(jsonf::requiredMember(doc, "", "product"), productPath);
  p.product = jsonf::oneOf(jsonf::requiredMember(product, productPath, "value"),
                           jsonf::child(productPath, "value"), {"A2", "A3", "none"});
  for (const auto& f : fields()) {
    const std::string path = jsonf::child(base, f.key);
    const json& entry = jsonf::object(jsonf::requiredMember(fs, base, f.key), path);
    applyProfileField(p, std::string(f.key), jsonf::requiredMember(entry, path, "value"),
                      jsonf::child(path, "value"));
  }
  for (auto it = fs.begin(); it != fs.end(); ++it)
    require(findField(it.key()) != nullptr, jsonf::child(base, it.key()), "unknown key");
  return p;
}

void applyProfileField(HardwareProfile& profile, const std::string& key, const json& value,
                       const std::string& path) {
  const Field* f = findField(key);
  require(f != nullptr, path, "unknown key");
  std::visit(
      [&](auto member) {
        using T = std::remove_reference_t<decltype(profile.*member)>;
        if constexpr (std::is_same_v<T, std::string>) {
          profile.*member = jsonf::oneOf(value, path, {"hccs-mesh", "supernode", "switch"});
        } else if constexpr (std::is_same_v<T, double>) {
          const double v = jsonf::boundedNumber(value, path, 0.0, kMaxGBps);
          require(v >= kMinGBps, path, "below the minimum of 0.001 GB/s, got " + value.dump());
          profile.*member = v;
        } else {
          const auto v = jsonf::boundedInteger(value, path, f->lo, f->hi);
          if (f->rule == Rule::PowerOfTwo)
            require((v & (v - 1)) == 0, path, "must be a power of two, got " + std::to_string(v));
          profile.*member = static_cast<T>(v);
        }
      },
      f->member);
}

json profileToJson(const HardwareProfile& profile) {
  json j = json::object();
  for (const auto& f : fields())
    std::visit([&](auto member) { j[std::string(f.key)] = profile.*member; }, f.member);
  return j;
}

std::string profileFieldSource(const std::string& profileName, const std::string& key) {
  const json& doc = profileDocument(profileName);
  auto fs = doc.find("fields");
  if (fs == doc.end() || !fs->is_object()) return "";
  auto entry = fs->find(key);
  if (entry == fs->end() || !entry->is_object()) return "";
  auto src = entry->find("source");
  return src != entry->end() && src->is_string() ? src->get<std::string>() : "";
}

}  // namespace moe
