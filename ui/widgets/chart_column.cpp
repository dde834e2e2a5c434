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
  bool anyGrows = false;
  for (QWidget* c : charts) {
    if (lines > 0) c->setMinimumHeight(lines * c->fontMetrics().height());
    // A widget with a fixed height (a table sized to its rows) takes no share of the rest.
    const bool grows = c->sizePolicy().verticalPolicy() != QSizePolicy::Fixed;
    lay->addWidget(c, grows ? 1 : 0);
    anyGrows = anyGrows || grows;
  }
  // Only fixed heights: they sit at the top rather than spread over the column.
  if (!anyGrows) lay->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  return scroll;
}

}  // namespace moe::ui
