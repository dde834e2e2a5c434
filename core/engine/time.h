#pragma once
// Emulated time is an integer count of picoseconds: integer time keeps runs bit-for-bit
// deterministic (DESIGN.md §1.2). Every conversion from a floating-point duration goes through
// checkedPs(), so a starved link or an absurd workload stops with a clear message instead
// of wrapping int64 into a negative (or "faster") time.

#include <cmath>
#include <cstdint>
#include <string>

#include "core/util/error.h"

namespace moe {

using Time = std::int64_t;

constexpr Time kPs = 1;
constexpr Time kNs = 1000;
constexpr Time kUs = 1000 * kNs;
constexpr Time kSecond = 1000 * 1000 * kUs;

// The cap on emulated time. A layer takes micro- to milliseconds; 1000 s leaves six orders
// of magnitude of headroom and stays a factor 9000 below int64's range, so any sum of two
// capped times is still exact.
constexpr Time kMaxEmulatedTime = 1000 * kSecond;

// What the caller should change when emulated time would pass the cap. The engine does not
// know scenario fields, so it names the two that can drive time that far.
inline InputError emulatedTimeCapError() {
  return InputError("hardware.overrides",
                    "emulated time would pass the cap of 1000 s; a bandwidth (*_gbps) is too "
                    "low for this workload, or the workload is too large");
}

constexpr Time nanoseconds(std::int64_t n) {
  return n * kNs;
}

// Bytes per picosecond for a bandwidth in GB/s (1e9 B/s): 1 GB/s = 1e-3 B/ps.
constexpr double gbpsToBytesPerPs(double gbps) {
  return gbps * 1e-3;
}

// A duration in picoseconds (fractional), rounded up so nothing finishes early. Refuses
// NaN, infinities and anything past the cap before the cast, which would be undefined.
inline Time checkedPs(double ps) {
  if (!(ps <= static_cast<double>(kMaxEmulatedTime))) throw emulatedTimeCapError();
  return ps <= 0 ? 0 : static_cast<Time>(std::ceil(ps));
}

// Picoseconds to move `bytes` at `gbps`, rounded up so nothing finishes early.
inline Time transferTime(std::int64_t bytes, double gbps) {
  return checkedPs(static_cast<double>(bytes) / gbpsToBytesPerPs(gbps));
}

// now + dt, refusing a result past the cap (and so any int64 overflow).
inline Time checkedAdd(Time now, Time dt) {
  if (dt > kMaxEmulatedTime - now) throw emulatedTimeCapError();
  return now + dt;
}

inline double toMicroseconds(Time t) {
  return static_cast<double>(t) / 1e6;
}

}  // namespace moe
