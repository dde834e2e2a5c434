#include "ui/widgets/nice_scale.h"

#include <algorithm>
#include <cmath>

namespace moe::ui {

NiceScale niceScale(double hi, int ticks) {
  hi = std::max(hi, 1e-9);
  ticks = std::max(2, ticks);
  const double raw = hi / ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag * 10;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (mag * m >= raw) {
      step = mag * m;
      break;
    }
  return {std::ceil(hi / step - 1e-9) * step, step};
}

}  // namespace moe::ui
