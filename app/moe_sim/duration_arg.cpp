#include "app/moe_sim/duration_arg.h"

#include <cmath>
#include <cstdlib>

#include "core/util/error.h"

namespace moesim {

double parseDurationSeconds(const std::string& text, const std::string& flag) {
  const std::string rule = "must be a positive duration such as 90s, 10m or 1h, got '" + text + "'";
  moe::require(!text.empty() && text.size() <= 32, flag, rule);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "m" || unit == "min") scale = 60;
  if (unit == "h") scale = 3600;
  moe::require(
      end != text.c_str() && scale > 0 && std::isfinite(v) && v > 0 && v * scale <= 7 * 24 * 3600,
      flag, rule + " (at most a week)");
  return v * scale;
}

}  // namespace moesim
