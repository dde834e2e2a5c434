#include "ui/widgets/heat_map_widget.h"

#include "ui/style/chrome.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "ui/style/palette.h"

namespace moe::ui {

HeatMapWidget::HeatMapWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setToolTip(tr("Click a cell to load that point's scenario into the editor and the live run"));
}

void HeatMapWidget::setData(const QString& title, const QString& xTitle, const QStringList& xLabels,
                            const QString& yTitle, const QStringList& yLabels,
                            std::vector<Cell> cells) {
  title_ = title;
  xTitle_ = xTitle;
  yTitle_ = yTitle;
  xLabels_ = xLabels;
  yLabels_ = yLabels;
  cells_ = std::move(cells);
  cells_.resize(static_cast<std::size_t>(columns() * rows()));
  update();
}

const HeatMapWidget::Cell& HeatMapWidget::cell(int column, int row) const {
  return cells_.at(static_cast<std::size_t>(row * columns() + column));
}

QRect HeatMapWidget::grid() const {
  const QFontMetrics fm(font());
  int labelW = fm.horizontalAdvance(yTitle_);
  for (const QString& l : yLabels_) labelW = std::max(labelW, fm.horizontalAdvance(l));
  const int top = 2 * fm.height() + 8;
  const int left = labelW + 16;
  const int bottom = 2 * fm.height() + 10;
  return QRect(left, top, std::max(10, width() - left - 12), std::max(10, height() - top - bottom));
}

QRect HeatMapWidget::cellRect(int column, int row) const {
  const QRect g = grid();
  if (columns() == 0 || rows() == 0) return {};
  const int x0 = g.left() + g.width() * column / columns();
  const int x1 = g.left() + g.width() * (column + 1) / columns();
  // Row 0 at the bottom, as on a chart's y axis.
  const int y1 = g.bottom() + 1 - g.height() * row / rows();
  const int y0 = g.bottom() + 1 - g.height() * (row + 1) / rows();
  return QRect(QPoint(x0, y0), QPoint(x1 - 1, y1 - 1));
}

QPoint HeatMapWidget::cellAt(QPoint pos) const {
  for (int r = 0; r < rows(); ++r)
    for (int c = 0; c < columns(); ++c)
      if (cellRect(c, r).contains(pos)) return {c, r};
  return {-1, -1};
}

void HeatMapWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const QFontMetrics fm(font());
  p.setPen(palette().text().color());
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.drawText(QRect(0, 4, width(), fm.height()), Qt::AlignHCenter, title_);
  p.setFont(font());
  if (cells_.empty()) return;
  double lo = 0, hi = 0;
  bool any = false;
  for (const Cell& c : cells_)
    if (c.value) {
      lo = any ? std::min(lo, *c.value) : *c.value;
      hi = any ? std::max(hi, *c.value) : *c.value;
      any = true;
    }
  for (int r = 0; r < rows(); ++r)
    for (int c = 0; c < columns(); ++c) {
      const QRect cr = cellRect(c, r);
      const Cell& cell = this->cell(c, r);
      QColor fill = noValueCell();
      // The ramp starts a little above 0: loadColor(0) is the idle grey, which would read
      // as a cell without a value.
      if (cell.value)
        fill = loadColor(0.15 + 0.85 * (hi > lo ? (*cell.value - lo) / (hi - lo) : 0.5));
      p.fillRect(cr, fill);
      if (!cell.value) {
        p.setPen(QPen(noValueLine(), 1, Qt::DotLine));
        p.drawLine(cr.topLeft(), cr.bottomRight());
      }
      p.setPen(fill.lightness() < 120 ? inkOnDark() : inkOnLight());
      p.drawText(cr, Qt::AlignCenter, fm.elidedText(cell.text, Qt::ElideRight, cr.width() - 4));
      p.setPen(palette().base().color());
      p.drawRect(cr);
    }
  p.setPen(palette().text().color());
  const QRect g = grid();
  for (int c = 0; c < columns(); ++c) {
    const QRect cr = cellRect(c, 0);
    p.drawText(QRect(cr.left(), g.bottom() + 4, cr.width(), fm.height()), Qt::AlignHCenter,
               xLabels_[c]);
  }
  p.drawText(QRect(g.left(), g.bottom() + 6 + fm.height(), g.width(), fm.height()),
             Qt::AlignHCenter, xTitle_);
  for (int r = 0; r < rows(); ++r) {
    const QRect cr = cellRect(0, r);
    p.drawText(QRect(0, cr.top(), g.left() - 8, cr.height()), Qt::AlignRight | Qt::AlignVCenter,
               yLabels_[r]);
  }
  p.drawText(QRect(0, fm.height() + 6, g.left() + 200, fm.height()), Qt::AlignLeft, yTitle_);
}

void HeatMapWidget::mousePressEvent(QMouseEvent* e) {
  const QPoint cell = cellAt(e->pos());
  if (cell.x() >= 0) emit cellClicked(cell.x(), cell.y());
}

bool HeatMapWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QPoint c = cellAt(help->pos());
    if (c.x() >= 0 && !cell(c.x(), c.y()).tip.isEmpty()) {
      QToolTip::showText(help->globalPos(), cell(c.x(), c.y()).tip, this);
      return true;
    }
  }
  return QWidget::event(e);
}

}  // namespace moe::ui
