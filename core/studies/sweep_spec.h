#pragma once
// A sweep file (`moe-sim sweep`, docs/SWEEP.md): a base scenario, axes over scenario fields
// (JSON paths as in the scenario file and the workbench editor), the designs to run and
// whether to verify. Reading checks the file itself with field paths (InputError); whether
// each point is a valid scenario is only known per point (sweep_points.h), so a bad value in
// one axis costs that point, not the sweep.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/run/design.h"
#include "core/scenario/scenario.h"

namespace moe {

struct SweepAxis {
  std::string field;                   // "rings.chunk_bytes", "hardware.overrides.hccs_gbps"
  std::vector<nlohmann::json> values;  // scalars (or arrays for an array field), in order
};

struct SweepSpec {
  Scenario base;            // validated
  nlohmann::json baseJson;  // scenarioToJson(base): what each point edits
  // The sweep file's directory, absolute: relative paths in the file (a "base" path, a
  // routing.trace_file of the base or of an axis value) are read from here, whatever the
  // current directory is.
  std::string dir;
  // The base scenario file, absolute, when "base" names one; empty for an inline base.
  std::string basePath;
  std::vector<SweepAxis> axes;  // first axis slowest
  std::vector<Design> designs;  // of the base scenario's workload, in report order
  bool verify = false;
  std::size_t pointCount() const;
};

// Caps that keep a typo ("step": 1 over a byte range) from queueing a billion runs.
constexpr std::size_t kMaxSweepAxisValues = 10000;
constexpr std::size_t kMaxSweepPoints = 100000;

// `baseDir` resolves a relative "base" path and a relative routing.trace_file of an inline
// base or of an axis value (the sweep file's directory; made absolute here). Throws InputError
// naming the sweep-file path
// ("axes[1].range.step", "base.model.hidden", ...).
SweepSpec sweepFromJson(const nlohmann::json& j, const std::string& baseDir);
// Reads a sweep file (bounded, strict JSON) and sweepFromJson's it.
SweepSpec loadSweepFile(const std::string& path);

// Whether `field` names a scenario field a sweep may vary in `baseJson` (a leaf of the
// scenario JSON, or any hardware.overrides.<profile field>); the UI offers the same fields.
bool isSweepableField(const nlohmann::json& baseJson, const std::string& field);
// Every field isSweepableField accepts, in the scenario JSON's order (the editor's order):
// what the workbench's Sweep view offers.
std::vector<std::string> sweepableFields(const Scenario& base);

}  // namespace moe
