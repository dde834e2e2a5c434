#pragma once
// The colours of everything that is not a role, an activity or a load: frames, tracks, grid
// lines, selection outlines, the series of the charts and the status texts. Named by use, so
// two views that draw the same thing draw it alike, and a theme changes them in one place.

#include <QColor>
#include <QString>

namespace moe::ui {

// ---- lines and outlines ----
// The selected core, ring, card or link.
inline QColor selectionInk() {
  return Qt::black;
}
// Swatches, servers, no role.
inline QColor frameLine() {
  return QColor(0x90, 0x90, 0x90);
}
// Chunk bounds, shared ticks.
inline QColor dividerLine() {
  return QColor(0xb0, 0xb0, 0xb0);
}
// Between cards' lanes.
inline QColor laneDivider() {
  return QColor(0xd0, 0xd0, 0xd0);
}
inline QColor stageMarkLine() {
  return QColor(0x70, 0x70, 0x70);
}
inline QColor cachedHeadLine() {
  return QColor(0x80, 0x80, 0x80);
}
inline QColor cardBorder() {
  return QColor(0x50, 0x50, 0x50);
}
// A bar's "before" mark.
inline QColor barEdge() {
  return QColor(0x40, 0x40, 0x40);
}
// A heat-map cell left empty.
inline QColor noValueLine() {
  return QColor(150, 150, 150);
}
// The timeline's "now".
inline QColor scrubLine() {
  return QColor(0xd0, 0x20, 0x20);
}

// ---- fills ----
// A ring, a lane, a free slot.
inline QColor emptyTrack() {
  return QColor(0xf2, 0xf2, 0xf2);
}
// The per-core timeline.
inline QColor laneTrack() {
  return QColor(0xf6, 0xf6, 0xf6);
}
// Free again after use.
inline QColor reusedSlot() {
  return QColor(0xdc, 0xe6, 0xdc);
}
inline QColor emptyBar() {
  return QColor(0xe0, 0xe0, 0xe0);
}
inline QColor noValueCell() {
  return QColor(200, 200, 200);
}
// Every other rank's instances.
inline QColor alternateBand() {
  return QColor(0, 0, 0, 14);
}
inline QColor stageBand(int i) {
  return i % 2 ? QColor(0xd8, 0xe0, 0xec) : QColor(0xc0, 0xcc, 0xdc);
}
// The RDMA fabric, a switch.
inline QColor fabricFill() {
  return QColor(0xe8, 0xee, 0xf6);
}
inline QColor fabricLine() {
  return QColor(0x70, 0x80, 0xa0);
}
inline QColor serverFill() {
  return QColor(0xf6, 0xf6, 0xfa);
}
inline QColor cardFill() {
  return QColor(0xff, 0xff, 0xff);
}
// Read, not yet freed.
inline QColor consumedHatch() {
  return QColor(0x10, 0x40, 0x10);
}
// A change of the numbers.
inline QColor numericsRow() {
  return QColor(0xff, 0xe0, 0xb2);
}
// Text drawn on a cell: dark on a light fill, light on a dark one.
inline QColor inkOnLight() {
  return Qt::black;
}
inline QColor inkOnDark() {
  return Qt::white;
}

// ---- buffers: a ring's bytes, a workspace's slots ----
// Readable.
inline QColor publishedData() {
  return QColor(0x4e, 0x9a, 0xf1);
}
// Written, not yet readable.
inline QColor unpublishedData() {
  return QColor(0xa8, 0xcc, 0xf8);
}
inline QColor beingRead() {
  return QColor(0x3c, 0xa0, 0x6a);
}
inline QColor headMarker() {
  return QColor(0x10, 0x90, 0x40);
}
inline QColor tailMarker() {
  return QColor(0x1f, 0x3f, 0xb0);
}

// ---- chart series ----
// Tokens routed.
inline QColor loadSeries() {
  return QColor(0x4e, 0x9a, 0xf1);
}
// Before a change.
inline QColor beforeSeries() {
  return QColor(0xb0, 0xb0, 0xb0);
}
// The last rebalance.
inline QColor previousSeries() {
  return QColor(0xe0, 0x90, 0x40);
}
// After it.
inline QColor afterSeries() {
  return QColor(0x3c, 0xa0, 0x6a);
}
// The designs a Compare chart puts side by side, in report order (phased, streaming, flat).
inline QColor designSeries(int i) {
  const QColor c[] = {QColor(0xb0, 0x7a, 0xe8), QColor(0x3c, 0xa0, 0x6a), QColor(0xe0, 0x8a, 0x2c)};
  return c[i % 3];
}
inline QColor otherStageSeries() {
  return QColor(0x8a, 0x8a, 0xb8);
}
inline QColor abSideSeries(int side) {
  return side == 0 ? QColor(0x33, 0x66, 0xcc) : QColor(0xdd, 0x77, 0x11);
}
// A figure of a stale run.
inline QColor staleFigure() {
  return QColor(150, 150, 150);
}

// ---- status text ----
inline QColor okText() {
  return QColor(0x20, 0x80, 0x40);
}
inline QColor errorText() {
  return QColor(0xc0, 0x20, 0x20);
}
// Stale, or a caution.
inline QColor warningText() {
  return QColor(0xb0, 0x50, 0x00);
}
// A style sheet that colours a widget's text, e.g. textStyle(okText()) + "font-weight:bold".
inline QString textStyle(const QColor& c) {
  return QStringLiteral("color:") + c.name() + ';';
}

}  // namespace moe::ui
