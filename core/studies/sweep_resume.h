#pragma once
// Reading back what an earlier run of the same sweep wrote (`--resume`). A row is kept only
// when it is exactly what this sweep writes: every field parses against its column (the
// field count, integers as integers, times with 6 decimals, the statuses and designs this
// sweep has, a 16-digit digest, no NUL byte), it writes back to the same bytes, its check
// holds (sweep_table.h), and its point has one row per design in design order. A point with
// a row that breaks any of this is run again, with a note naming the line and the rule; a
// torn last line (the writer was stopped mid-write) is left out the same way. A file that is
// another sweep's output (another header or sweep hash) is refused, so --resume never
// rewrites a file it did not write.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/studies/sweep_table.h"

namespace moe {

struct SweepResume {
  // The intact points: point -> its lines (one per design, in design order, each with '\n').
  std::map<std::size_t, std::vector<std::string>> lines;
  // One per damaged line: "line 7: events: must be an integer; point 3 is run again".
  std::vector<std::string> notes;
};

// `text` is the file's content. Throws InputError(option, ...) when the file is not this
// sweep's output.
SweepResume readSweepCsvForResume(const SweepTable& table, const std::string& text,
                                  const std::string& option);
SweepResume readSweepJsonlForResume(const SweepTable& table, const std::string& text,
                                    const std::string& option);

}  // namespace moe
