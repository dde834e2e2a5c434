#pragma once
// A sweep's rows as text: CSV (one header line, then one line per row) and JSON lines, and
// reading back what an earlier run of the same sweep already wrote (`--resume`). The same
// functions serve the CLI (local and MPI) and the workbench's "Save CSV", so every front end
// writes the same bytes for the same rows.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/studies/sweep_row.h"

namespace moe {

std::string sweepCsvHeader(const std::vector<std::string>& columns);
// Times ("_us" columns) with 6 decimals (picoseconds, exact), other numbers as JSON writes
// them, strings quoted when they hold a comma, a quote or a line break; null is empty.
std::string sweepCsvLine(const std::vector<std::string>& columns, const SweepRow& row);
std::string sweepJsonLine(const SweepRow& row);

// The lines of an output file kept for --resume, by point: only points whose rows are all
// there (one per design) and whose axis values are this sweep's. A torn last line (no line
// break: the writer was stopped mid-write) is dropped.
struct SweepResume {
  std::map<std::size_t, std::vector<std::string>> lines;  // point -> its lines, with '\n'
};
// `text` is the file's content. Throws InputError(option, ...) when the file is not this
// sweep's output (another header, a row of a point the sweep does not have, other values).
SweepResume readSweepCsvForResume(const SweepSpec& spec, const std::string& text,
                                  const std::string& option);
SweepResume readSweepJsonlForResume(const SweepSpec& spec, const std::string& text,
                                    const std::string& option);

}  // namespace moe
