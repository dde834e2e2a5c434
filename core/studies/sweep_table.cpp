#include "core/studies/sweep_table.h"

#include <cstdio>

#include "core/studies/sweep_point.h"
#include "core/util/error.h"

namespace moe {

namespace {

std::string csvField(const std::string& column, const SweepRow& v) {
  if (v.is_null()) return "";
  if (v.is_number_float() && column.size() > 3 &&
      column.compare(column.size() - 3, 3, "_us") == 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", v.get<double>());
    return buf;
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

// Complete lines of `text` (each with its '\n'); a torn last line is left out.
std::vector<std::string> completeLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl + 1 - start));
  return lines;
}

// Keeps only points with every design's row.
SweepResume completePoints(const SweepSpec& spec,
                           std::map<std::size_t, std::vector<std::string>> byPoint) {
  SweepResume r;
  for (auto& [point, lines] : byPoint)
    if (lines.size() == spec.designs.size()) r.lines[point] = std::move(lines);
  return r;
}

std::size_t pointOf(const std::string& digits, const SweepSpec& spec, const std::string& option,
                    std::size_t lineNo) {
  std::size_t point = 0;
  bool ok = !digits.empty() && digits.size() < 10;
  for (char c : digits) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) point = point * 10 + static_cast<std::size_t>(c - '0');
  }
  require(ok && point < spec.pointCount(), option,
          "line " + std::to_string(lineNo) + " is not a row of this sweep (point \"" +
              digits.substr(0, 12) + "\")");
  return point;
}

}  // namespace

std::string sweepCsvHeader(const std::vector<std::string>& columns) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) line += (i ? "," : "") + columns[i];
  return line + "\n";
}

std::string sweepCsvLine(const std::vector<std::string>& columns, const SweepRow& row) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) line += ',';
    const auto it = row.find(columns[i]);
    if (it != row.end()) line += csvField(columns[i], *it);
  }
  return line + "\n";
}

std::string sweepJsonLine(const SweepRow& row) {
  return row.dump() + "\n";
}

SweepResume readSweepCsvForResume(const SweepSpec& spec, const std::string& text,
                                  const std::string& option) {
  const std::vector<std::string> lines = completeLines(text);
  if (lines.empty()) return {};
  const std::vector<std::string> columns = sweepColumns(spec);
  require(lines[0] == sweepCsvHeader(columns), option,
          "the file's header is not this sweep's columns (another sweep's output? write to a "
          "new file or leave out --resume)");
  std::map<std::size_t, std::vector<std::string>> byPoint;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::size_t point = pointOf(line.substr(0, line.find(',')), spec, option, i + 1);
    // The axis values must be the ones this sweep gives that point.
    SweepRow probe;
    probe["point"] = point;
    const auto values = sweepPointValues(spec, point);
    std::vector<std::string> prefixCols{"point"};
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      probe[spec.axes[a].field] = values[a];
      prefixCols.push_back(spec.axes[a].field);
    }
    std::string prefix = sweepCsvLine(prefixCols, probe);
    prefix.back() = ',';
    require(line.compare(0, prefix.size(), prefix) == 0, option,
            "line " + std::to_string(i + 1) + " has other axis values than point " +
                std::to_string(point) + " of this sweep");
    byPoint[point].push_back(line);
  }
  return completePoints(spec, std::move(byPoint));
}

SweepResume readSweepJsonlForResume(const SweepSpec& spec, const std::string& text,
                                    const std::string& option) {
  std::map<std::size_t, std::vector<std::string>> byPoint;
  const std::vector<std::string> lines = completeLines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = "line " + std::to_string(i + 1);
    const SweepRow row = SweepRow::parse(lines[i], nullptr, false);
    require(row.is_object() && row.contains("point") && row["point"].is_number_unsigned(), option,
            where + " is not a row of this sweep (no \"point\")");
    const std::size_t point =
        pointOf(std::to_string(row["point"].get<std::uint64_t>()), spec, option, i + 1);
    const auto values = sweepPointValues(spec, point);
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      require(
          row.contains(spec.axes[a].field) && row[spec.axes[a].field] == values[a], option,
          where + " has other axis values than point " + std::to_string(point) + " of this sweep");
    byPoint[point].push_back(lines[i]);
  }
  return completePoints(spec, std::move(byPoint));
}

}  // namespace moe
