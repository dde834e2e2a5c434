#pragma once
// Emulated time is an integer count of picoseconds: integer time keeps runs bit-for-bit
// deterministic (SPEC §1.2).

#include <cmath>
#include <cstdint>

namespace moe {

using Time = std::int64_t;

constexpr Time kPs = 1;
constexpr Time kNs = 1000;
constexpr Time kUs = 1000 * kNs;

constexpr Time nanoseconds(std::int64_t n) {
  return n * kNs;
}

// Bytes per picosecond for a bandwidth in GB/s (1e9 B/s): 1 GB/s = 1e-3 B/ps.
constexpr double gbpsToBytesPerPs(double gbps) {
  return gbps * 1e-3;
}

// Picoseconds to move `bytes` at `gbps`, rounded up so nothing finishes early.
inline Time transferTime(std::int64_t bytes, double gbps) {
  return static_cast<Time>(std::ceil(static_cast<double>(bytes) / gbpsToBytesPerPs(gbps)));
}

inline double toMicroseconds(Time t) {
  return static_cast<double>(t) / 1e6;
}

}  // namespace moe
