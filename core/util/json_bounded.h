#pragma once
// Number readers for untrusted input, on top of json_fields.h:
// - boundedInteger: jsonf::integer() converts floats to int64 to test integrality, which is
//   undefined behaviour for values such as 1e300, so huge floats are rejected first;
// - boundedNumber: jsonf::number() prints values with std::to_string ("%f"), i.e. 300
//   digits for 1e300; this one prints the JSON spelling ("1e+300", "10.5").

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
            "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                j.dump());
  }
  return integer(j, path, lo, hi);
}

inline double boundedNumber(const json& j, const std::string& path, double lo, double hi) {
  require(j.is_number(), path, "must be a number");
  const double v = j.get<double>();
  require(v >= lo && v <= hi, path,
          "must be in [" + json(lo).dump() + ", " + json(hi).dump() + "], got " + j.dump());
  return v;
}

}  // namespace moe::jsonf
