#pragma once
// The one spelling of a run digest wherever it is shown or stored (run summary, sweep rows,
// vector manifests, the workbench, the Python module): 16 lower-case hex digits with the
// leading zeros kept, so digests compare as text and line up in tables.

#include <cstdint>
#include <cstdio>
#include <string>

namespace moe {

inline std::string formatDigest(std::uint64_t digest) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
  return text;
}

}  // namespace moe
