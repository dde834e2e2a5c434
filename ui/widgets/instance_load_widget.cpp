#include "ui/widgets/instance_load_widget.h"

#include "ui/style/chrome.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "ui/widgets/painted_text.h"

namespace moe::ui {

InstanceLoadWidget::InstanceLoadWidget(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(160);
  setMouseTracking(true);
}

void InstanceLoadWidget::setLoad(const ExpertLoad& load, const ExpertColors& colors) {
  load_ = load;
  colors_ = colors;
  update();
}

// Text rows from the font, so the presenter's larger text keeps its descenders.
int InstanceLoadWidget::lineH() const {
  return fontMetrics().height() + 2;
}

QRectF InstanceLoadWidget::plotRect() const {
  const double left = fontMetrics().horizontalAdvance("00000") + 8;
  const double top = lineH() + 6;
  return QRectF(left, top, width() - left - 10, height() - top - 2 * lineH() - 4);
}

int InstanceLoadWidget::instanceAt(QPoint p) const {
  const int n = static_cast<int>(load_.perInstanceAfter.size());
  const QRectF r = plotRect();
  if (n == 0 || !r.contains(p)) return -1;
  return std::clamp(static_cast<int>((p.x() - r.left()) / r.width() * n), 0, n - 1);
}

bool InstanceLoadWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int i = instanceAt(he->pos());
    if (i < 0) {
      QToolTip::hideText();
    } else {
      const int P = std::max(1, load_.placePerRank);
      const int logical = i < static_cast<int>(load_.instanceLogical.size())
                              ? load_.instanceLogical[static_cast<std::size_t>(i)]
                              : -1;
      const int replicas = logical >= 0 && logical < static_cast<int>(load_.table.size())
                               ? load_.table[static_cast<std::size_t>(logical)][0]
                               : 1;
      QToolTip::showText(he->globalPos(),
                         tr("instance %1 on rank %2: expert %3 (%4 replica(s))\n%5 token slots "
                            "after UpdateExpert, "
                            "%6 without balancing")
                             .arg(i)
                             .arg(i / P)
                             .arg(logical)
                             .arg(replicas)
                             .arg(load_.perInstanceAfter[static_cast<std::size_t>(i)], 0, 'f', 0)
                             .arg(i < static_cast<int>(load_.perInstanceBefore.size())
                                      ? load_.perInstanceBefore[static_cast<std::size_t>(i)]
                                      : 0,
                                  0, 'f', 0),
                         this);
    }
    return true;
  }
  return QWidget::event(e);
}

void InstanceLoadWidget::paintEvent(QPaintEvent*) {
  beginPaintedText(this);
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setRenderHint(QPainter::Antialiasing, false);
  const QRectF r = plotRect();
  const int n = static_cast<int>(load_.perInstanceAfter.size());
  p.setPen(palette().text().color());
  QFont title = font();
  title.setBold(true);
  p.setFont(title);
  drawFittedText(p, this, QRectF(0, 2, width(), QFontMetrics(title).height() + 2),
                 Qt::AlignHCenter | Qt::AlignVCenter,
                 tr("Tokens per instance (replicas share a colour)"));
  p.setFont(font());
  if (n == 0) {
    p.drawText(r, Qt::AlignCenter, tr("no run loaded"));
    return;
  }
  double top = 1;
  for (double v : load_.perInstanceAfter) top = std::max(top, v);
  for (double v : load_.perInstanceBefore) top = std::max(top, v);
  top *= 1.05;
  const double w = r.width() / n;
  const int P = std::max(1, load_.placePerRank);
  const int ranks = n / P;

  // Rank bands: alternate shading so instances group visibly by rank.
  for (int k = 0; k < ranks; ++k) {
    const QRectF band(r.left() + k * P * w, r.top(), P * w, r.height());
    if (k % 2) p.fillRect(band, alternateBand());
  }
  for (int i = 0; i < n; ++i) {
    const double v = load_.perInstanceAfter[static_cast<std::size_t>(i)];
    const int logical = i < static_cast<int>(load_.instanceLogical.size())
                            ? load_.instanceLogical[static_cast<std::size_t>(i)]
                            : -1;
    const double h = v / top * r.height();
    const QRectF bar(r.left() + i * w + (w > 4 ? 1 : 0), r.bottom() - h,
                     std::max(1.0, w - (w > 4 ? 2 : 0)), h);
    p.fillRect(bar, colors_.of(logical));
    if (i < static_cast<int>(load_.perInstanceBefore.size())) {  // identity placement's load
      const double y =
          r.bottom() - load_.perInstanceBefore[static_cast<std::size_t>(i)] / top * r.height();
      p.setPen(QPen(barEdge(), 1));
      p.drawLine(QPointF(r.left() + i * w, y), QPointF(r.left() + (i + 1) * w, y));
    }
  }
  // Axes, rank labels (every rank when they fit) and the y scale.
  p.setPen(palette().text().color());
  p.drawLine(r.bottomLeft(), r.bottomRight());
  p.drawLine(r.bottomLeft(), r.topLeft());
  const QFontMetrics fm(font());
  const int every =
      std::max(1, static_cast<int>(std::ceil(fm.horizontalAdvance("r00") * 1.4 / (P * w))));
  for (int k = 0; k < ranks; k += every)
    drawFittedText(p, this, QRectF(r.left() + k * P * w, r.bottom() + 2, P * w * every, lineH()),
                   Qt::AlignLeft | Qt::AlignTop, QString("r%1").arg(k));
  const double half = lineH() / 2.0;
  drawFittedText(p, this, QRectF(0, r.top() - half, r.left() - 4, lineH()),
                 Qt::AlignRight | Qt::AlignVCenter, QString::number(top, 'f', 0));
  drawFittedText(p, this, QRectF(0, r.bottom() - half, r.left() - 4, lineH()),
                 Qt::AlignRight | Qt::AlignVCenter, "0");
  drawFittedText(p, this, QRectF(0, height() - lineH() - 2, width(), lineH()),
                 Qt::AlignHCenter | Qt::AlignVCenter,
                 tr("tick: load without balancing · grey: single instance"));
}

}  // namespace moe::ui
