#pragma once
// One colour vocabulary for every view: fill by role, border by activity, links by load.
// Kept in one place so the legend, the grid, the timeline and the cluster agree.

#include <QColor>
#include <QString>

#include "core/record/states.h"

namespace moe::ui {

QColor roleColor(Role r);
QColor activityColor(Activity a);
// Green (idle) through yellow to red (saturated), for a load in [0, 1].
QColor loadColor(double load);
// `c` washed towards white: a waiting share reads as the same role, but quieter.
QColor paleOf(const QColor& c);
// The fused workload's summary lanes: communication hidden under compute, or exposed.
QColor hiddenCommunicationColor();
QColor exposedCommunicationColor();
QString roleText(Role r);
QString activityText(Activity a);
// Human-readable bytes: "128 KiB".
QString bytesText(double bytes);
// Emulated time in microseconds with ns precision: "12.345 us".
QString timeText(long long ps);

}  // namespace moe::ui
