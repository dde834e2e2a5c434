#pragma once
// The digest `moe-sim run` prints for the designs it ran: one design's run digest as it is,
// so a sweep row (one design per row) shows the same 16 digits as `moe-sim run --impl` of
// that design; several designs' digests combined in run order.

#include <cstdint>
#include <vector>

#include "core/util/hash.h"

namespace moe {

inline std::uint64_t runsDigest(const std::vector<std::uint64_t>& perDesign) {
  if (perDesign.size() == 1) return perDesign.front();
  Fnv1a h;
  for (std::uint64_t d : perDesign) h.value(d);
  return h.digest();
}

}  // namespace moe
