#pragma once
// An integer reader that is safe for any JSON number. jsonf::integer() converts floats to
// int64 to test integrality, which is undefined behaviour for values such as 1e300; input
// files are untrusted, so huge floats are rejected here before that conversion happens.

#include <cmath>
#include <cstdint>
#include <string>

#include "core/util/json_fields.h"

namespace moe::jsonf {

inline std::int64_t boundedInteger(const json& j, const std::string& path, std::int64_t lo,
                                   std::int64_t hi) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    // 2^53: beyond it a double cannot even tell neighbouring integers apart.
    require(std::fabs(v) <= 9007199254740992.0, path,
            "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "], got " + j.dump());
  }
  return integer(j, path, lo, hi);
}

}  // namespace moe::jsonf
