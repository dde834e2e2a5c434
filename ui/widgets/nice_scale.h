#pragma once
// Round axis ticks for a range that starts at zero: the end rounded up to a multiple of a
// step of 1, 2 or 5 times a power of ten, as QValueAxis::applyNiceNumbers does for charts.
// Timelines of runs compared side by side share one such scale, so equal times sit at the
// same x and the ticks fall on round values.

namespace moe::ui {

struct NiceScale {
  double end = 1;   // the axis end, >= the value asked for
  double step = 1;  // distance between ticks
};

// A scale from 0 to at least `hi` with at most `ticks` intervals (at least 2 asked for).
NiceScale niceScale(double hi, int ticks);

}  // namespace moe::ui
