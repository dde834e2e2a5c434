#include "core/studies/sweep_table.h"

#include <cmath>
#include <cstdio>

#include "core/studies/sweep_point.h"
#include "core/util/format_digest.h"
#include "core/util/hash.h"

namespace moe {

namespace {

bool isTimeColumn(const std::string& column) {
  return column.size() > 3 && column.compare(column.size() - 3, 3, "_us") == 0;
}

}  // namespace

nlohmann::ordered_json sweepCellValue(const nlohmann::ordered_json& v) {
  // -0.0 would print as "-0.0" (JSON) or "-0.000000" (6 decimals).
  if (v.is_number_float() && v.get<double>() == 0.0) return 0.0;
  return v;
}

std::uint64_t sweepHash(const SweepSpec& spec) {
  // The resolved spec: paths in it are absolute, so the hash does not depend on the directory
  // the sweep runs from. A format number, so a change of the row layout changes every hash.
  nlohmann::json j;
  j["format"] = 1;
  j["base"] = spec.baseJson;
  for (const SweepAxis& a : spec.axes)
    j["axes"].push_back({{"field", a.field}, {"values", a.values}});
  for (Design d : spec.designs) j["designs"].push_back(std::string(designName(d)));
  j["verify"] = spec.verify;
  Fnv1a h;
  h.text(j.dump());
  return h.digest();
}

std::string sweepCsvField(const std::string& column, const nlohmann::ordered_json& value) {
  const nlohmann::ordered_json v = sweepCellValue(value);
  if (v.is_null()) return "";
  if (v.is_number_float() && isTimeColumn(column)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", v.get<double>());
    std::string s = buf;
    // A time a hair below zero would print as "-0.000000".
    if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);
    return s;
  }
  const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

SweepTable::SweepTable(const SweepSpec& spec)
    : spec_(&spec), sweepHash_(sweepHash(spec)), columns_(sweepColumns(spec)) {
  columns_.push_back("check:" + formatDigest(sweepHash_));
}

std::string SweepTable::check(const SweepRow& row) const {
  Fnv1a h;
  h.value(sweepHash_);
  const auto point = row.find("point");
  h.value(point != row.end() && point->is_number_unsigned()
              ? sweepPointScenarioHash(*spec_, point->get<std::size_t>())
              : std::uint64_t{0});
  for (std::size_t i = 0; i + 1 < columns_.size(); ++i) {
    const auto it = row.find(columns_[i]);
    h.text(it == row.end() ? std::string() : sweepCsvField(columns_[i], *it));
    h.text("\x1f");  // a field separator no field text can hold unquoted
  }
  return formatDigest(h.digest());
}

SweepRow SweepTable::complete(const SweepRow& row) const {
  SweepRow out;
  for (std::size_t i = 0; i + 1 < columns_.size(); ++i) {
    const auto it = row.find(columns_[i]);
    out[columns_[i]] = it == row.end() ? nullptr : sweepCellValue(*it);
  }
  out[checkColumn()] = check(row);
  return out;
}

std::string SweepTable::csvHeader() const {
  std::string line;
  for (std::size_t i = 0; i < columns_.size(); ++i) line += (i ? "," : "") + columns_[i];
  return line + "\n";
}

std::string SweepTable::csvLine(const SweepRow& row) const {
  const SweepRow full = complete(row);
  std::string line;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (i) line += ',';
    line += sweepCsvField(columns_[i], full[columns_[i]]);
  }
  return line + "\n";
}

std::string SweepTable::jsonLine(const SweepRow& row) const {
  return complete(row).dump() + "\n";
}

}  // namespace moe
