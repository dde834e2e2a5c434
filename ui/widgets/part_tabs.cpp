#include "ui/widgets/part_tabs.h"

#include <QScrollArea>
#include <QTabWidget>

#include "ui/widgets/chart_column.h"

namespace moe::ui {

QTabWidget* partTabs(const QList<QPair<QString, QWidget*>>& parts) {
  auto* tabs = new QTabWidget;
  tabs->setDocumentMode(true);  // no frame inside the view's own tab
  for (const auto& [title, part] : parts) tabs->addTab(chartColumn({part}, 0), title);
  return tabs;
}

}  // namespace moe::ui
