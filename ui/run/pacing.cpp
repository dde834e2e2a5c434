#include "ui/run/pacing.h"

#include <algorithm>
#include <cmath>

#include "core/runtime/emulation.h"

namespace moe::ui {

bool dataMoving(const Emulation& emu) {
  const Machine& m = emu.machine();
  for (const LinkInfo& l : m.links())
    if ((l.kind == LinkInfo::Kind::Hccs || l.kind == LinkInfo::Kind::SwitchTx ||
         l.kind == LinkInfo::Kind::NicTx) &&
        m.net().resource(l.resource).activeRate > 0)
      return true;
  for (const RingBuffer& r : emu.rings())
    if (r.tail() > r.head()) return true;
  return false;
}

namespace {
constexpr double kNsPerS = 1e9;
const double kDoublings = std::log2(kMaxQuietFactor);
const double kCapNs = static_cast<double>(kQuietDoublingNs) * kDoublings;  // ramp ends here

// Distance from the stretch's start to `w` ns into it: the integral of
// speed * 2^(u/T) while it rises, speed * max factor after.
double distanceAt(double speed, double w) {
  const double T = static_cast<double>(kQuietDoublingNs);
  const double ramp = speed * T / std::log(2.0) / kNsPerS;  // ps per unit of (2^(w/T) - 1)
  if (w <= kCapNs) return ramp * (std::exp2(w / T) - 1);
  return ramp * (kMaxQuietFactor - 1) + speed * kMaxQuietFactor * (w - kCapNs) / kNsPerS;
}

// The inverse: wall ns into the stretch at which `d` ps have been crossed.
double wallAt(double speed, double d) {
  const double T = static_cast<double>(kQuietDoublingNs);
  const double ramp = speed * T / std::log(2.0) / kNsPerS;
  const double atCap = ramp * (kMaxQuietFactor - 1);
  if (d <= atCap) return T * std::log2(1 + d / ramp);
  return kCapNs + (d - atCap) * kNsPerS / (speed * kMaxQuietFactor);
}
}  // namespace

double quietDistancePs(double psPerWallSecond, double fromNs, double wallNs) {
  if (psPerWallSecond <= 0 || wallNs <= 0) return 0;
  return distanceAt(psPerWallSecond, fromNs + wallNs) - distanceAt(psPerWallSecond, fromNs);
}

double quietWallNs(double psPerWallSecond, double fromNs, double ps) {
  if (ps <= 0) return 0;
  if (psPerWallSecond <= 0) return HUGE_VAL;
  const double from = distanceAt(psPerWallSecond, fromNs);
  return std::max(0.0, wallAt(psPerWallSecond, from + ps) - fromNs);
}

}  // namespace moe::ui
