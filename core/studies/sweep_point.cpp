#include "core/studies/sweep_point.h"

#include <filesystem>

#include "core/scenario/scenario_json.h"
#include "core/util/error.h"
#include "core/util/hash.h"

namespace moe {

std::vector<nlohmann::json> sweepPointValues(const SweepSpec& spec, std::size_t index) {
  std::vector<nlohmann::json> values(spec.axes.size());
  for (std::size_t a = spec.axes.size(); a-- > 0;) {
    const std::size_t n = spec.axes[a].values.size();
    values[a] = spec.axes[a].values[index % n];
    index /= n;
  }
  return values;
}

nlohmann::json sweepPointJson(const SweepSpec& spec, const std::vector<nlohmann::json>& values) {
  require(values.size() == spec.axes.size(), "axes", "one value per axis");
  nlohmann::json j = spec.baseJson;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    // Paths were checked against the base (isSweepableField), so every step exists but
    // possibly the last key of hardware.overrides, which this adds.
    const std::string& field = spec.axes[a].field;
    // A flat ring field over a base written per stage sets it in both stages' objects (the
    // base's own, not ones another axis adds), since those override the flat fields.
    if (field.rfind("rings.", 0) == 0 && field.find('.', 6) == std::string::npos) {
      const std::string leaf = field.substr(6);
      const nlohmann::json& baseRings = spec.baseJson.at("rings");
      j["rings"][leaf] = values[a];
      for (const char* stage : {"dispatch", "combine"})
        if (baseRings.contains(stage)) j["rings"][stage][leaf] = values[a];
      continue;
    }
    nlohmann::json* node = &j;
    std::size_t start = 0;
    for (;;) {
      const std::size_t dot = field.find('.', start);
      node = &(*node)[field.substr(start, dot - start)];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    *node = values[a];
    if (field == "routing.trace_file" && node->is_string() &&
        !node->get_ref<const std::string&>().empty()) {
      const std::filesystem::path p(node->get<std::string>());
      if (p.is_relative()) *node = (std::filesystem::path(spec.dir) / p).string();
    }
  }
  return j;
}

std::uint64_t sweepPointScenarioHash(const SweepSpec& spec, std::size_t index) {
  Fnv1a h;
  h.text(sweepPointJson(spec, sweepPointValues(spec, index)).dump());
  return h.digest();
}

Scenario sweepPointScenario(const SweepSpec& spec, const std::vector<nlohmann::json>& values) {
  const nlohmann::json j = sweepPointJson(spec, values);
  // The same reader as a scenario file: a value of the wrong type or range, or one that
  // breaks a rule spanning fields, throws InputError naming the scenario field.
  return scenarioFromJson(j);
}

}  // namespace moe
