#pragma once
// A column of charts that never squeezes a chart below what its text needs. Qt Charts
// shortens axis labels to "..." when a chart is too short for them (the presenter's larger
// scale leaves a 1920x1080 projector only 1280x720 logical pixels); here each chart keeps
// a minimum height in text lines, and the column scrolls instead when the window is smaller.

#include <QList>

class QScrollArea;
class QWidget;

namespace moe::ui {

// `lines`: a chart's minimum height in lines of its font (title, plot, labels, axis title);
// 0 leaves each widget's own minimum.
QScrollArea* chartColumn(const QList<QWidget*>& charts, int lines);

}  // namespace moe::ui
