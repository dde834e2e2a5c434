#include "ui/style/expert_colors.h"

#include <cmath>

namespace moe::ui {

ExpertColors::ExpertColors(const std::vector<int>& replicas) : hueIndex_(replicas.size(), -1) {
  int next = 0;
  for (std::size_t e = 0; e < replicas.size(); ++e)
    if (replicas[e] > 1) hueIndex_[e] = next++;
}

bool ExpertColors::replicated(int e) const {
  return e >= 0 && e < static_cast<int>(hueIndex_.size()) &&
         hueIndex_[static_cast<std::size_t>(e)] >= 0;
}

QColor ExpertColors::of(int e) const {
  if (!replicated(e)) return QColor(0xb8, 0xc0, 0xcc);
  // Golden-ratio steps around the hue circle keep consecutive replicated experts far apart.
  const double hue =
      std::fmod(0.07 + 0.618033988749895 * hueIndex_[static_cast<std::size_t>(e)], 1.0);
  return QColor::fromHsvF(hue, 0.75, 0.85);
}

}  // namespace moe::ui
