#include "ui/style/palette.h"

#include <algorithm>
#include <array>

namespace moe::ui {

QColor roleColor(Role r) {
  static const std::array<QColor, static_cast<int>(Role::Count)> colors = {
      QColor(0xe6, 0xe6, 0xe6),  // idle
      QColor(0x4e, 0x9a, 0xf1),  // sender
      QColor(0xb0, 0x7a, 0xe8),  // forwarder
      QColor(0x3c, 0xc0, 0x8a),  // receiver
      QColor(0xf2, 0xa5, 0x41),  // mapper
      QColor(0xe8, 0x6a, 0x9a),  // layout-expert
      QColor(0xd4, 0x8f, 0x6a),  // layout-rank
      QColor(0x6a, 0x6a, 0xd8),  // gemm
      QColor(0x2c, 0xb5, 0xc0),  // a2a
      QColor(0x9a, 0xb8, 0x3a),  // reduce-scatter
  };
  return colors[static_cast<int>(r)];
}

QColor activityColor(Activity a) {
  static const std::array<QColor, static_cast<int>(Activity::Count)> colors = {
      QColor(0xc8, 0xc8, 0xc8),  // idle
      QColor(0x1f, 0x5f, 0xd0),  // copy
      QColor(0x10, 0x90, 0x40),  // vector
      QColor(0x60, 0x30, 0xb0),  // cube
      QColor(0xe0, 0x20, 0x20),  // wait-space
      QColor(0xf0, 0x90, 0x00),  // wait-data
      QColor(0x80, 0x80, 0x20),  // wait-sync
      QColor(0x40, 0x40, 0x40),  // done
  };
  return colors[static_cast<int>(a)];
}

QColor loadColor(double load) {
  const double x = std::clamp(load, 0.0, 1.0);
  // Hue from 120 (green) down to 0 (red); an idle link is drawn pale.
  if (x <= 0.0) return QColor(0xc8, 0xd0, 0xc8);
  return QColor::fromHsvF((1.0 - x) * 120.0 / 360.0, 0.85, 0.85);
}

QColor paleOf(const QColor& c) {
  return QColor((c.red() + 2 * 255) / 3, (c.green() + 2 * 255) / 3, (c.blue() + 2 * 255) / 3);
}

QColor hiddenCommunicationColor() {
  return QColor(0x3c, 0xa0, 0x6a);
}
QColor exposedCommunicationColor() {
  return QColor(0xd0, 0x40, 0x40);
}

QString roleText(Role r) {
  return QString::fromLatin1(roleName(r).data(), static_cast<int>(roleName(r).size()));
}

QString activityText(Activity a) {
  return QString::fromLatin1(activityName(a).data(), static_cast<int>(activityName(a).size()));
}

QString bytesText(double bytes) {
  if (bytes >= 1 << 30) return QString::number(bytes / (1 << 30), 'f', 2) + " GiB";
  if (bytes >= 1 << 20) return QString::number(bytes / (1 << 20), 'f', 2) + " MiB";
  if (bytes >= 1 << 10) return QString::number(bytes / (1 << 10), 'f', 1) + " KiB";
  return QString::number(bytes, 'f', 0) + " B";
}

QString timeText(long long ps) {
  return QString::number(static_cast<double>(ps) / 1e6, 'f', 3) + " us";
}

}  // namespace moe::ui
