#pragma once
// Chrome trace-event JSON (DESIGN.md §7), readable by Perfetto and chrome://tracing:
// "X" events for core activities, "C" counters for ring occupancy and workspace-stage
// slots in use, "M" names for processes (one per card) and threads (one per core); ts in
// microseconds.

#include <ostream>
#include <string>
#include <vector>

namespace moe {

class Emulation;

struct TraceSource {
  const Emulation* emulation;
  std::string label;  // e.g. "streaming", prefixed to process names
};

void writeChromeTrace(std::ostream& out, const std::vector<TraceSource>& sources);

}  // namespace moe
