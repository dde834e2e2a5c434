#include "ui/widgets/chart_column.h"

#include <QFontMetrics>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QWidget>

namespace moe::ui {

QScrollArea* chartColumn(const QList<QWidget*>& charts, int lines) {
  auto* inner = new QWidget;
  auto* lay = new QVBoxLayout(inner);
  lay->setContentsMargins(0, 0, 0, 0);
  for (QWidget* c : charts) {
    if (lines > 0) c->setMinimumHeight(lines * c->fontMetrics().height());
    // A widget with a fixed height (a table sized to its rows) takes no share of the rest.
    lay->addWidget(c, c->sizePolicy().verticalPolicy() == QSizePolicy::Fixed ? 0 : 1);
  }
  auto* scroll = new QScrollArea;
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  return scroll;
}

}  // namespace moe::ui
