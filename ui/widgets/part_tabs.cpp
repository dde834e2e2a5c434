#include "ui/widgets/part_tabs.h"

#include <QBoxLayout>
#include <QScrollArea>
#include <QTabWidget>

#include "ui/widgets/chart_column.h"

namespace moe::ui {

QTabWidget* partTabs(const QList<QPair<QString, QWidget*>>& parts) {
  auto* tabs = new QTabWidget;
  tabs->setDocumentMode(true);  // no frame inside the view's own tab
  for (const auto& [title, part] : parts) {
    QScrollArea* page = chartColumn({part}, 0);
    // A part of fixed height (a table sized to its rows, the timelines) sits at the top of its
    // page rather than in the middle of it; the others (charts) take the page's height.
    if (part->sizePolicy().verticalPolicy() == QSizePolicy::Fixed)
      static_cast<QBoxLayout*>(page->widget()->layout())->addStretch(1);
    tabs->addTab(page, title);
  }
  return tabs;
}

}  // namespace moe::ui
