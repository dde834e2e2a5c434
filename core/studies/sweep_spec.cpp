#include "core/studies/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>

#include "core/machine/hardware_profile.h"
#include "core/scenario/scenario_json.h"
#include "core/util/bounded_file.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/json_strict.h"

namespace moe {

using nlohmann::json;

namespace {

// A sweep file is a few kB; the cap is the scenario file's, since a base may be inline.
constexpr std::uintmax_t kMaxSweepFileBytes = kMaxScenarioFileBytes;

std::vector<std::string> splitPath(const std::string& field) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = field.find('.', start);
    parts.push_back(field.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Resolves a base scenario, inline or a path, naming its errors under "base".
Scenario readBase(const json& j, const std::string& baseDir, std::string& basePath) {
  if (j.is_string()) {
    std::filesystem::path p(jsonf::string(j, "base"));
    if (p.is_relative()) p = std::filesystem::path(baseDir) / p;
    basePath = p.lexically_normal().string();
    return loadScenarioFile(basePath);  // errors name that file's fields
  }
  require(j.is_object(), "base", "must be a scenario object or the path of a scenario file");
  Scenario sc;
  try {
    sc = scenarioFromJson(j);
  } catch (const InputError& e) {
    throw InputError("base." + e.path(), e.rule());
  }
  std::filesystem::path trace(sc.routing.traceFile);
  if (!sc.routing.traceFile.empty() && trace.is_relative())
    sc.routing.traceFile = (std::filesystem::path(baseDir) / trace).string();
  return sc;
}

std::vector<json> readRange(const json& r, const std::string& path) {
  jsonf::object(r, path);
  jsonf::rejectUnknownKeys(r, path, {"from", "to", "step", "factor"});
  for (const char* k : {"from", "to"}) require(r.contains(k), jsonf::child(path, k), "is required");
  require(r.contains("step") != r.contains("factor"), path,
          "needs exactly one of \"step\" (arithmetic) or \"factor\" (geometric)");
  const bool integral = r["from"].is_number_integer() && r["to"].is_number_integer() &&
                        (r.contains("step") ? r["step"] : r["factor"]).is_number_integer();
  const double from = jsonf::number(r["from"], jsonf::child(path, "from"), -1e18, 1e18);
  const double to = jsonf::number(r["to"], jsonf::child(path, "to"), -1e18, 1e18);
  std::vector<json> values;
  auto push = [&](double v) {
    require(values.size() < kMaxSweepAxisValues, path,
            "gives more than " + std::to_string(kMaxSweepAxisValues) + " values");
    if (integral)
      values.emplace_back(static_cast<std::int64_t>(std::llround(v)));
    else
      values.emplace_back(v);
  };
  if (r.contains("step")) {
    const std::string sp = jsonf::child(path, "step");
    const double step = jsonf::number(r["step"], sp, -1e18, 1e18);
    require(step != 0, sp, "must not be 0");
    require((to - from) / step >= 0, sp, "must lead from \"from\" towards \"to\"");
    // from + i * step, not a running sum, so 0.1 steps do not drift; the slack admits a
    // "to" that rounding puts a hair past the last step.
    const double n = std::floor((to - from) / step + 1e-9);
    require(n < static_cast<double>(kMaxSweepAxisValues), path,
            "gives more than " + std::to_string(kMaxSweepAxisValues) + " values");
    for (std::int64_t i = 0; i <= static_cast<std::int64_t>(n); ++i)
      push(from + static_cast<double>(i) * step);
  } else {
    const std::string fp = jsonf::child(path, "factor");
    const double factor = jsonf::number(r["factor"], fp, -1e18, 1e18);
    require(factor > 1, fp, "must be greater than 1");
    require(from > 0 && to >= from, path, "a geometric range needs 0 < from <= to");
    for (double v = from; v <= to * (1 + 1e-12); v *= factor) push(v);
  }
  return values;
}

}  // namespace

std::size_t SweepSpec::pointCount() const {
  std::size_t n = 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

namespace {
// The ring tiling's fields: rings.<f> sets both stages, rings.dispatch.<f> and
// rings.combine.<f> one, whichever form (flat or per stage) the base is written in.
bool isRingField(const std::string& name) {
  for (const char* f : kRingTilingKeys)
    if (name == f) return true;
  return false;
}
}  // namespace

bool isSweepableField(const json& baseJson, const std::string& field) {
  // The design is the sweep's own "designs"; the workload fixes the stage columns.
  if (field == "dispatch_impl" || field == "workload.kind" || field == "name") return false;
  const std::vector<std::string> parts = splitPath(field);
  if (!parts.empty() && parts[0] == "rings")
    return (parts.size() == 2 && isRingField(parts[1])) ||
           (parts.size() == 3 && (parts[1] == "dispatch" || parts[1] == "combine") &&
            isRingField(parts[2]));
  if (parts.size() == 3 && parts[0] == "hardware" && parts[1] == "overrides") {
    for (const auto& name : HardwareProfile::fieldNames())
      if (name == parts[2]) return true;
    return false;
  }
  const json* node = &baseJson;
  for (const auto& p : parts) {
    if (p.empty() || !node->is_object() || !node->contains(p)) return false;
    node = &(*node)[p];
  }
  return !node->is_object() && field != "hardware.overrides";
}

std::vector<std::string> sweepableFields(const Scenario& base) {
  const json j = scenarioToJson(base);
  std::vector<std::string> fields;
  auto walk = [&](const auto& self, const json& node, const std::string& prefix) -> void {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
      if (path == "hardware.overrides") {
        for (const auto& name : HardwareProfile::fieldNames())
          fields.push_back("hardware.overrides." + name);
      } else if (it->is_object()) {
        self(self, *it, path);
      } else if (isSweepableField(j, path)) {
        fields.push_back(path);
      }
    }
  };
  walk(walk, j, "");
  // Both forms of the ring fields, whichever the base's JSON is written in.
  std::vector<std::string> rings;
  for (const char* prefix : {"rings.", "rings.dispatch.", "rings.combine."})
    for (const char* f : kRingTilingKeys) rings.push_back(std::string(prefix) + f);
  std::erase_if(fields, [](const std::string& f) { return f.rfind("rings.", 0) == 0; });
  const auto at = std::find_if(fields.begin(), fields.end(),
                               [](const std::string& f) { return f.rfind("combine.", 0) == 0; });
  fields.insert(at, rings.begin(), rings.end());
  return fields;
}

SweepSpec sweepFromJson(const json& j, const std::string& baseDir) {
  jsonf::object(j, "");
  jsonf::rejectUnknownKeys(j, "", {"description", "base", "axes", "designs", "verify"});
  SweepSpec spec;
  spec.dir = std::filesystem::absolute(baseDir.empty() ? "." : baseDir).lexically_normal().string();
  if (j.contains("description")) jsonf::string(j["description"], "description");
  spec.base = j.contains("base") ? readBase(j["base"], spec.dir, spec.basePath) : defaultScenario();
  spec.baseJson = scenarioToJson(spec.base);

  require(j.contains("axes"), "axes", "is required (a list of {\"field\", \"values\"|\"range\"})");
  const json& axes = j["axes"];
  require(axes.is_array() && !axes.empty(), "axes", "must be a non-empty list");
  require(axes.size() <= 8, "axes", "at most 8 axes");
  std::size_t points = 1;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::string path = jsonf::index("axes", i);
    const json& a = jsonf::object(axes[i], path);
    jsonf::rejectUnknownKeys(a, path, {"field", "values", "range"});
    const std::string fp = jsonf::child(path, "field");
    require(a.contains("field"), fp, "is required (a scenario field path, e.g. rings.chunk_bytes)");
    SweepAxis axis;
    axis.field = jsonf::string(a["field"], fp, 200);
    require(isSweepableField(spec.baseJson, axis.field), fp,
            "\"" + axis.field +
                "\" is not a scenario field a sweep can vary (a leaf path of docs/SCENARIO.md "
                "or hardware.overrides.<profile field>; not name, dispatch_impl or "
                "workload.kind)");
    for (const SweepAxis& other : spec.axes)
      require(other.field != axis.field, fp, "\"" + axis.field + "\" is already an axis");
    require(a.contains("values") != a.contains("range"), path,
            "needs exactly one of \"values\" (a list) or \"range\"");
    if (a.contains("values")) {
      const std::string vp = jsonf::child(path, "values");
      require(a["values"].is_array() && !a["values"].empty(), vp, "must be a non-empty list");
      require(a["values"].size() <= kMaxSweepAxisValues, vp,
              "at most " + std::to_string(kMaxSweepAxisValues) + " values");
      for (std::size_t v = 0; v < a["values"].size(); ++v) {
        const json& value = a["values"][v];
        require(!value.is_object() && !value.is_null(), jsonf::index(vp, v),
                "must be a number, string, boolean or list (the field's own type)");
        axis.values.push_back(value);
      }
    } else {
      axis.values = readRange(a["range"], jsonf::child(path, "range"));
    }
    points *= axis.values.size();
    require(points <= kMaxSweepPoints, "axes",
            "the product has more than " + std::to_string(kMaxSweepPoints) + " points");
    spec.axes.push_back(std::move(axis));
  }

  const WorkloadKind workload = spec.base.workload.kind;
  if (j.contains("designs")) {
    const json& d = j["designs"];
    require(d.is_array() && !d.empty(), "designs", "must be a non-empty list of design names");
    std::vector<bool> wanted(std::size(kDesigns), false);
    for (std::size_t i = 0; i < d.size(); ++i) {
      const std::string path = jsonf::index("designs", i);
      const std::string name = jsonf::string(d[i], path, 64);
      const auto design = designFromName(name);
      std::vector<std::string> every;
      for (const DesignInfo& row : kDesigns) every.emplace_back(row.name);
      require(design.has_value(), path,
              "\"" + name + "\" is not a design (" + nameList(every, "or") + ")");
      require(workloadOf(*design) == workload, path,
              "\"" + name + "\" is not a design of the base scenario's workload (" +
                  toString(workload) + ")");
      require(!wanted[static_cast<int>(*design)], path, "\"" + name + "\" is listed twice");
      wanted[static_cast<int>(*design)] = true;
    }
    for (Design design : designsOf(workload))
      if (wanted[static_cast<int>(design)]) spec.designs.push_back(design);
  } else {
    spec.designs = scenarioDesigns(spec.base);
  }
  if (j.contains("verify")) spec.verify = jsonf::boolean(j["verify"], "verify");
  return spec;
}

SweepSpec loadSweepFile(const std::string& path) {
  const std::string text = readBoundedFile(path, kMaxSweepFileBytes, path);
  return sweepFromJson(parseJsonStrict(text, path),
                       std::filesystem::path(path).parent_path().string());
}

}  // namespace moe
