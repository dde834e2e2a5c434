#include "core/studies/sweep_resume.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "core/studies/sweep_point.h"
#include "core/util/error.h"

namespace moe {

namespace {

// One line (a CSV record may span lines inside a quoted message) and where it starts.
struct Record {
  std::size_t lineNo = 0;
  std::string text;  // with its '\n' when complete
  bool complete = false;
};

// Records end at a line break; for CSV only outside quotes.
std::vector<Record> records(const std::string& text, bool csv) {
  std::vector<Record> out;
  std::size_t lineNo = 1, start = 0, startLine = 1;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (csv && text[i] == '"') quoted = !quoted;
    if (text[i] != '\n') continue;
    ++lineNo;
    if (quoted) continue;
    out.push_back({startLine, text.substr(start, i + 1 - start), true});
    start = i + 1;
    startLine = lineNo;
  }
  if (start < text.size()) out.push_back({startLine, text.substr(start), false});
  return out;
}

// What is wrong with a row: the rule, and its point when that much could be read.
struct Damage {
  std::string rule;
};

enum class Kind { Point, Axis, Design, Status, Message, Time, Count, Verification, Digest, Check };

Kind kindOf(const SweepTable& t, std::size_t column) {
  const std::string& c = t.columns()[column];
  const std::size_t axes = t.spec().axes.size();
  if (column == 0) return Kind::Point;
  if (column <= axes) return Kind::Axis;
  if (column + 1 == t.columns().size()) return Kind::Check;
  if (c == "design") return Kind::Design;
  if (c == "status") return Kind::Status;
  if (c == "message") return Kind::Message;
  if (c == "verification") return Kind::Verification;
  if (c == "digest") return Kind::Digest;
  if (c.size() > 3 && c.compare(c.size() - 3, 3, "_us") == 0) return Kind::Time;
  return Kind::Count;
}

bool isLowerHex16(const std::string& s) {
  return s.size() == 16 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool oneOf(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (s == n) return true;
  return false;
}

[[noreturn]] void damaged(const std::string& column, const std::string& rule) {
  throw Damage{column + ": " + rule};
}

// The rules every row obeys, on its JSON values: the same for both formats (a CSV row is
// read into JSON values first). `point` is the row's point, already checked.
void checkValues(const SweepTable& t, const SweepRow& row, std::size_t point) {
  const std::vector<nlohmann::json> values = sweepPointValues(t.spec(), point);
  for (std::size_t i = 1; i < t.columns().size(); ++i) {
    const std::string& c = t.columns()[i];
    const SweepRow& v = row.at(c);
    const bool text = v.is_string();
    const std::string s = text ? v.get<std::string>() : std::string();
    if (text && s.find('\0') != std::string::npos) damaged(c, "holds a NUL byte");
    switch (kindOf(t, i)) {
      case Kind::Point:
        break;
      case Kind::Axis:
        if (v.dump() != sweepCellValue(values[i - 1]).dump())
          damaged(c, "is not this sweep's value at point " + std::to_string(point) + " (" +
                         values[i - 1].dump() + ")");
        break;
      case Kind::Design: {
        bool known = false;
        for (Design d : t.spec().designs) known = known || s == designName(d);
        if (!text || !known) damaged(c, "is not a design of this sweep");
        break;
      }
      case Kind::Status:
        if (!text || !oneOf(s, {"ok", "invalid", "error", "deadlock"}))
          damaged(c, "must be ok, invalid, error or deadlock");
        break;
      case Kind::Message:
        if (!v.is_null() && !text) damaged(c, "must be text");
        break;
      case Kind::Time: {
        if (v.is_null()) break;
        if (!v.is_number_float() || v.get<double>() < 0) damaged(c, "must be a time in us");
        // Times are whole picoseconds, so 6 decimals give back the same double.
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6f", v.get<double>());
        if (std::strtod(buf, nullptr) != v.get<double>())
          damaged(c, "must be whole picoseconds (6 decimals in us)");
        break;
      }
      case Kind::Count:
        if (!v.is_null() && !v.is_number_unsigned())
          damaged(c, "must be an integer (written without a decimal point or sign)");
        break;
      case Kind::Verification:
        if (!text || !oneOf(s, {"passed", "failed", "skipped"}))
          damaged(c, "must be passed, failed or skipped");
        break;
      case Kind::Digest:
        if (!v.is_null() && !(text && isLowerHex16(s)))
          damaged(c, "must be 16 lower-case hex digits");
        break;
      case Kind::Check:
        if (!text || !isLowerHex16(s)) damaged(c, "must be 16 lower-case hex digits");
        if (s != t.check(row))
          throw Damage{"its check does not match its fields (a changed or damaged row)"};
        break;
    }
  }
}

std::size_t pointOf(const SweepTable& t, const SweepRow& v) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= t.spec().pointCount())
    damaged("point",
            "must be a point of this sweep (0.." + std::to_string(t.spec().pointCount() - 1) + ")");
  return v.get<std::size_t>();
}

// The fields of a CSV line as written (quotes kept), or a Damage.
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      const bool opens = !quoted && fields.back().empty();
      const bool escaped = quoted && i + 1 < line.size() && line[i + 1] == '"';
      const bool closes = quoted && !escaped;
      if (!opens && !escaped && !closes) throw Damage{"a quote inside an unquoted field"};
      fields.back() += c;
      if (escaped) fields.back() += line[++i];
      if (opens || closes) quoted = opens;
      if (closes && i + 1 < line.size() && line[i + 1] != ',')
        throw Damage{"text after a closing quote"};
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw Damage{"a quoted field is not closed"};
  return fields;
}

std::string unquoted(const std::string& field) {
  if (field.empty() || field[0] != '"') return field;
  std::string s;
  for (std::size_t i = 1; i + 1 < field.size(); ++i) {
    s += field[i];
    if (field[i] == '"') ++i;  // "" is one quote
  }
  return s;
}

bool allDigits(const std::string& s) {
  return !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos &&
         (s.size() == 1 || s[0] != '0');
}

// A CSV line read into the row it says, field by field against its column.
std::pair<SweepRow, std::size_t> readCsvRow(const SweepTable& t, const std::string& record) {
  std::string line = record.substr(0, record.size() - 1);  // without '\n'
  if (line.find('\0') != std::string::npos) throw Damage{"holds a NUL byte"};
  const std::vector<std::string> fields = csvFields(line);
  if (fields.size() != t.columns().size())
    throw Damage{"has " + std::to_string(fields.size()) + " fields, the header " +
                 std::to_string(t.columns().size())};
  if (!allDigits(fields[0])) damaged("point", "must be a point number");
  const std::size_t point = pointOf(t, std::stoull(fields[0]));
  const std::vector<nlohmann::json> values = sweepPointValues(t.spec(), point);
  SweepRow row;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string& c = t.columns()[i];
    const std::string& f = fields[i];
    switch (kindOf(t, i)) {
      case Kind::Point:
        row[c] = point;
        break;
      case Kind::Axis:
        // An axis value is compared as written: the CSV does not say its JSON type.
        if (f != sweepCsvField(c, values[i - 1]))
          damaged(c, "is not this sweep's value at point " + std::to_string(point) + " (" +
                         values[i - 1].dump() + ")");
        row[c] = sweepCellValue(values[i - 1]);
        break;
      case Kind::Time: {
        const std::size_t dot = f.find('.');
        const bool ok = dot != std::string::npos && dot + 7 == f.size() &&
                        allDigits(f.substr(0, dot)) &&
                        f.find_first_not_of("0123456789", dot + 1) == std::string::npos;
        if (!f.empty() && !ok) damaged(c, "must be a time in us with 6 decimals");
        row[c] = f.empty() ? SweepRow() : SweepRow(std::strtod(f.c_str(), nullptr));
        break;
      }
      case Kind::Count:
        if (!f.empty() && !allDigits(f))
          damaged(c, "must be an integer (written without a decimal point or sign)");
        row[c] = f.empty() ? SweepRow() : SweepRow(std::stoull(f));
        break;
      case Kind::Message:
      case Kind::Digest:
        row[c] = f.empty() ? SweepRow() : SweepRow(unquoted(f));
        break;
      default:
        row[c] = unquoted(f);
        break;
    }
  }
  checkValues(t, row, point);
  if (t.csvLine(row) != record) throw Damage{"is not written as this sweep writes its rows"};
  return {row, point};
}

std::pair<SweepRow, std::size_t> readJsonRow(const SweepTable& t, const std::string& record,
                                             const std::string& option, std::size_t lineNo) {
  if (record.find('\0') != std::string::npos) throw Damage{"holds a NUL byte"};
  const SweepRow row = SweepRow::parse(record, nullptr, false);
  if (row.is_discarded() || !row.is_object()) throw Damage{"is not a JSON object"};
  for (const auto& [key, value] : row.items())
    require(key.rfind("check:", 0) != 0 || key == t.checkColumn(), option,
            "line " + std::to_string(lineNo) + " is a row of another sweep (\"" + key +
                "\"; this sweep's rows have \"" + t.checkColumn() +
                "\"): write to a new file or leave out --resume");
  std::size_t i = 0;
  for (const auto& [key, value] : row.items()) {
    if (i >= t.columns().size())
      throw Damage{"has a key this sweep does not write: \"" + key + "\""};
    if (key != t.columns()[i])
      throw Damage{"has \"" + key + "\" where this sweep writes \"" + t.columns()[i] + "\""};
    ++i;
  }
  if (i != t.columns().size()) throw Damage{"has no \"" + t.columns()[i] + "\""};
  const std::size_t point = pointOf(t, row["point"]);
  checkValues(t, row, point);
  if (t.jsonLine(row) != record) throw Damage{"is not written as this sweep writes its rows"};
  return {row, point};
}

struct ReadRow {
  std::size_t lineNo;
  std::string design;
  std::string text;
};

std::string withPoint(std::optional<std::size_t> point) {
  return point ? "; point " + std::to_string(*point) + " is run again" : "; left out";
}

// Keeps the points whose rows are one per design, in design order, and no damaged row.
SweepResume keepIntactPoints(const SweepTable& t, std::map<std::size_t, std::vector<ReadRow>> rows,
                             std::vector<std::pair<std::size_t, std::string>> damage,
                             const std::map<std::size_t, std::size_t>& damagedPoints) {
  std::vector<std::string> want;
  for (Design d : t.spec().designs) want.emplace_back(designName(d));
  for (auto& [point, list] : rows) {
    if (damagedPoints.count(point)) continue;
    std::vector<std::string> have;
    for (const ReadRow& r : list) have.push_back(r.design);
    if (have == want) continue;
    std::string names;
    for (const std::string& h : have) names += (names.empty() ? "" : ", ") + h;
    damage.emplace_back(list.front().lineNo,
                        "line " + std::to_string(list.front().lineNo) + ": point " +
                            std::to_string(point) + " has rows " + names + " (this sweep writes " +
                            std::to_string(want.size()) + ": one per design, in design order)" +
                            withPoint(point));
  }
  SweepResume r;
  for (auto& [point, list] : rows) {
    std::vector<std::string> have;
    for (const ReadRow& row : list) have.push_back(row.design);
    if (damagedPoints.count(point) || have != want) continue;
    for (ReadRow& row : list) r.lines[point].push_back(std::move(row.text));
  }
  std::sort(damage.begin(), damage.end());
  for (auto& [line, note] : damage) r.notes.push_back(std::move(note));
  return r;
}

SweepResume readRows(const SweepTable& t, const std::vector<Record>& recs, std::size_t first,
                     bool csv, const std::string& option) {
  std::map<std::size_t, std::vector<ReadRow>> rows;
  std::vector<std::pair<std::size_t, std::string>> damage;
  std::map<std::size_t, std::size_t> damagedPoints;  // point -> first damaged line
  bool recognised = false;
  for (std::size_t k = first; k < recs.size(); ++k) {
    const Record& rec = recs[k];
    const std::string where = "line " + std::to_string(rec.lineNo);
    if (!rec.complete) {
      damage.emplace_back(rec.lineNo, where +
                                          ": cut short (no line break at the end: the writer "
                                          "was stopped mid-line); left out");
      continue;
    }
    std::optional<std::size_t> point;
    try {
      // The point first, so a damaged row's point can be run again.
      if (csv) {
        const std::size_t comma = rec.text.find(',');
        const std::string p = rec.text.substr(0, comma);
        if (allDigits(p) && std::stoull(p) < t.spec().pointCount()) point = std::stoull(p);
        auto [row, pt] = readCsvRow(t, rec.text);
        rows[pt].push_back({rec.lineNo, row["design"].get<std::string>(), rec.text});
      } else {
        const SweepRow j = SweepRow::parse(rec.text, nullptr, false);
        if (j.is_object() && j.contains(t.checkColumn())) recognised = true;
        if (j.is_object() && j.contains("point") && j["point"].is_number_unsigned() &&
            j["point"].get<std::uint64_t>() < t.spec().pointCount())
          point = j["point"].get<std::size_t>();
        auto [row, pt] = readJsonRow(t, rec.text, option, rec.lineNo);
        rows[pt].push_back({rec.lineNo, row["design"].get<std::string>(), rec.text});
      }
    } catch (const Damage& d) {
      damage.emplace_back(rec.lineNo, where + ": " + d.rule + withPoint(point));
      if (point && !damagedPoints.count(*point)) damagedPoints[*point] = rec.lineNo;
    }
  }
  // Without a header, a JSON-lines file shows it is this sweep's by its rows' check key: a
  // file with none is not rewritten.
  // A lone line cut short by a stop shows no check key yet: it must at least begin a row.
  const bool tornFirstRow = recs.size() == 1 && !recs[0].complete &&
                            std::string("{\"point\":").rfind(recs[0].text, 0) == 0;
  const bool tornRowStart =
      recs.size() == 1 && !recs[0].complete && recs[0].text.rfind("{\"point\":", 0) == 0;
  require(csv || recognised || recs.empty() || tornFirstRow || tornRowStart, option,
          "no line is a row of this sweep (none has \"" + t.checkColumn() +
              "\"): not this sweep's output; write to a new file or leave out --resume");
  return keepIntactPoints(t, std::move(rows), std::move(damage), damagedPoints);
}

}  // namespace

SweepResume readSweepCsvForResume(const SweepTable& table, const std::string& text,
                                  const std::string& option) {
  const std::vector<Record> recs = records(text, true);
  if (recs.empty()) return {};
  // A header cut short by a stop is this sweep's when it begins this sweep's header.
  if (!recs[0].complete) {
    require(table.csvHeader().compare(0, text.size(), text) == 0, option,
            "the file's header is not this sweep's columns (another sweep's output? write to a "
            "new file or leave out --resume)");
    return {};
  }
  const std::string& header = recs[0].text;
  if (header != table.csvHeader()) {
    const std::string mine = table.csvHeader();
    const std::size_t at = mine.rfind(",check:");
    const bool otherSweep = header.size() == mine.size() && header.compare(0, at, mine, 0, at) == 0;
    if (otherSweep)
      throw InputError(option, "the file is another sweep's output (its header has \"" +
                                   header.substr(at + 1, header.size() - at - 2) +
                                   "\", this sweep's rows have \"" + table.checkColumn() +
                                   "\"): write to a new file or leave out --resume");
    throw InputError(option,
                     "the file's header is not this sweep's columns (another sweep's output? "
                     "write to a new file or leave out --resume)");
  }
  return readRows(table, recs, 1, true, option);
}

SweepResume readSweepJsonlForResume(const SweepTable& table, const std::string& text,
                                    const std::string& option) {
  return readRows(table, records(text, false), 0, false, option);
}

}  // namespace moe
