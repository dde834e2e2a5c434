#pragma once
// A view's figures as tabs, one part to a tab (the timelines, a chart, a table). At 1920x1080
// in presenter mode no two of them fit one above the other, and a part below the fold is one
// a teacher at a projector has to scroll to find; a tab is one click, and a lesson step
// selects the part it talks about. A page scrolls when the window is smaller than its part.

#include <QList>
#include <QPair>
#include <QString>

class QTabWidget;
class QWidget;

namespace moe::ui {

QTabWidget* partTabs(const QList<QPair<QString, QWidget*>>& parts);

}  // namespace moe::ui
