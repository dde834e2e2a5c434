#pragma once
// A sweep's rows as text: CSV (one header line, then one line per row) and JSON lines. The
// last column of every row is its check, named `check:<sweep hash>`: the sweep hash is a
// hash of the resolved sweep (base scenario, axes, designs, verify), and a row's value is a
// hash of its own fields, the sweep hash and its point's scenario. --resume keeps only rows
// whose check holds (sweep_resume.h). The same writer serves the CLI (local and MPI) and the
// workbench's "Save CSV", so every front end writes the same bytes for the same rows.

#include <cstdint>
#include <string>
#include <vector>

#include "core/studies/sweep_row.h"

namespace moe {

// A hash of everything that decides a sweep's rows; the same whatever directory it runs in.
std::uint64_t sweepHash(const SweepSpec& spec);

// One field as the CSV writes it: times ("_us" columns) with 6 decimals (picoseconds,
// exact), other numbers as JSON writes them, negative zero as zero, strings quoted when they
// hold a comma, a quote or a line break; null is empty.
std::string sweepCsvField(const std::string& column, const nlohmann::ordered_json& value);

// A value as the writers write it: negative zero is zero (-0 reads as an error on a byte
// count or a time, and it is the same figure).
nlohmann::ordered_json sweepCellValue(const nlohmann::ordered_json& value);

class SweepTable {
 public:
  explicit SweepTable(const SweepSpec& spec);

  const SweepSpec& spec() const { return *spec_; }
  // sweepColumns(spec) and the check column last.
  const std::vector<std::string>& columns() const { return columns_; }
  const std::string& checkColumn() const { return columns_.back(); }

  std::string csvHeader() const;
  std::string csvLine(const SweepRow& row) const;
  std::string jsonLine(const SweepRow& row) const;
  // 16 hex digits over the row's data fields (as sweepCsvField writes them), the sweep hash
  // and the scenario hash of row["point"].
  std::string check(const SweepRow& row) const;

 private:
  // The row with its check, in column order, negative zeros made zero.
  SweepRow complete(const SweepRow& row) const;

  const SweepSpec* spec_;
  std::uint64_t sweepHash_;
  std::vector<std::string> columns_;
};

}  // namespace moe
