#include "ui/widgets/ring_strip_widget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include "ui/models/selection.h"
#include "ui/style/palette.h"

namespace moe::ui {

namespace {
constexpr int kRowH = 34;
// The key above the rings: two lines of text, wrapped, so it never runs off a narrow view.
int headerHeight(const QWidget& w) {
  return 2 * w.fontMetrics().height() + 4;
}
constexpr int kLabelW = 230;
// The value column fits the longest figure ("512.0 KiB/512.0 KiB w9999") in the widget's font.
int valueWidth(const QWidget& w) {
  return w.fontMetrics().horizontalAdvance("888.88 KiB/888.88 KiB w8888") + 12;
}
const QColor kPublished(0x4e, 0x9a, 0xf1);
const QColor kUnpublished(0xa8, 0xcc, 0xf8);
const QColor kHead(0x10, 0x90, 0x40);
const QColor kTail(0x1f, 0x3f, 0xb0);

// x of a ring offset inside the bar. Offsets are absolute; the bar shows them modulo capacity.
double xOf(std::int64_t offset, std::int64_t cap, const QRectF& bar) {
  if (cap <= 0) return bar.left();
  return bar.left() + bar.width() * static_cast<double>(offset % cap) / static_cast<double>(cap);
}

// Fills [from, to) of the ring: one rectangle, or two when the range crosses the wrap.
void fillRange(QPainter& p, std::int64_t from, std::int64_t to, std::int64_t cap, const QRectF& bar,
               const QBrush& b) {
  if (to <= from || cap <= 0) return;
  if (to - from >= cap) {
    p.fillRect(bar, b);
    return;
  }
  const double x0 = xOf(from, cap, bar), x1 = xOf(to, cap, bar);
  if (to % cap != 0 && x1 > x0) {
    p.fillRect(QRectF(x0, bar.top(), x1 - x0, bar.height()), b);
  } else {
    p.fillRect(QRectF(x0, bar.top(), bar.right() - x0, bar.height()), b);
    p.fillRect(QRectF(bar.left(), bar.top(), x1 - bar.left(), bar.height()), b);
  }
}

void marker(QPainter& p, double x, const QRectF& bar, const QColor& c, bool above,
            const QString& label) {
  QPainterPath tri;
  const double y = above ? bar.top() : bar.bottom();
  const double d = above ? -6 : 6;
  tri.moveTo(x, y);
  tri.lineTo(x - 4, y + d);
  tri.lineTo(x + 4, y + d);
  tri.closeSubpath();
  p.fillPath(tri, c);
  p.setPen(QPen(c, 1.5));
  p.drawLine(QPointF(x, bar.top()), QPointF(x, bar.bottom()));
  p.drawText(QPointF(x + 5, above ? bar.top() - 1 : bar.bottom() + 9), label);
}
}  // namespace

RingStripWidget::RingStripWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(headerHeight(*this) + kRowH);
}

QSize RingStripWidget::sizeHint() const {
  return {640, headerHeight(*this) + kRowH * std::max<int>(1, static_cast<int>(rows_.size()))};
}

void RingStripWidget::setSnapshot(std::shared_ptr<const Snapshot> s, int card) {
  snap_ = std::move(s);
  const std::size_t before = rows_.size();
  rows_.clear();
  if (snap_)
    for (std::size_t i = 0; i < snap_->rings.size(); ++i)
      if (snap_->rings[i].consumerCard == card) rows_.push_back(static_cast<int>(i));
  if (rows_.size() != before) {
    setMinimumHeight(headerHeight(*this) +
                     kRowH * std::max<int>(1, static_cast<int>(rows_.size())));
    updateGeometry();
  }
  update();
}

void RingStripWidget::setSelectedRing(int id) {
  selected_ = id;
  update();
}

int RingStripWidget::rowAt(const QPoint& p) const {
  const int r = (p.y() - headerHeight(*this)) / kRowH;
  return p.y() >= headerHeight(*this) && r >= 0 && r < static_cast<int>(rows_.size()) ? rows_[r]
                                                                                      : -1;
}

void RingStripWidget::paintRing(QPainter& p, const RingSnap& r, const QRect& row) const {
  const QRectF bar(row.left() + kLabelW, row.top() + 10, row.width() - kLabelW - valueWidth(*this),
                   row.height() - 20);
  p.setPen(palette().text().color());
  p.drawText(QRect(row.left() + 4, row.top(), kLabelW - 8, row.height()),
             Qt::AlignVCenter | Qt::AlignLeft, QString::fromStdString(r.name));
  p.fillRect(bar, QColor(0xf2, 0xf2, 0xf2));
  // Occupied: published [head, tail) and written-but-unpublished [tail, producerTail).
  fillRange(p, r.head, r.tail, r.capacity, bar, kPublished);
  fillRange(p, r.tail, r.producerTail, r.capacity, bar, kUnpublished);
  // Consumed but not yet freed: [head, consumerCursor), hatched over the occupied part.
  fillRange(p, r.head, r.consumerCursor, r.capacity, bar,
            QBrush(QColor(0x10, 0x40, 0x10), Qt::FDiagPattern));
  p.setPen(QPen(QColor(0xb0, 0xb0, 0xb0), 1));
  if (r.chunkBytes > 0 && r.capacity / r.chunkBytes <= 64)
    for (std::int64_t o = r.chunkBytes; o < r.capacity; o += r.chunkBytes)
      p.drawLine(QPointF(xOf(o, r.capacity, bar), bar.top()),
                 QPointF(xOf(o, r.capacity, bar), bar.bottom()));
  p.setPen(QPen(palette().text().color(), 1));
  p.drawRect(bar);
  QFont small = font();
  small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.75));
  p.setFont(small);
  marker(p, xOf(r.head, r.capacity, bar), bar, kHead, false, "H");
  marker(p, xOf(r.tail, r.capacity, bar), bar, kTail, true, "T");
  if (r.cachedHead != r.head) {
    p.setPen(QPen(QColor(0x80, 0x80, 0x80), 1, Qt::DashLine));
    const double x = xOf(r.cachedHead, r.capacity, bar);
    p.drawLine(QPointF(x, bar.top() - 3), QPointF(x, bar.bottom() + 3));
  }
  p.setFont(font());
  p.setPen(palette().text().color());
  const double used = static_cast<double>(r.occupied());
  p.drawText(
      QRect(static_cast<int>(bar.right()) + 6, row.top(), valueWidth(*this) - 8, row.height()),
      Qt::AlignVCenter,
      QString("%1/%2 w%3")
          .arg(bytesText(used), bytesText(static_cast<double>(r.capacity)))
          .arg(r.stats.wraps));
  if (r.id == selected_) {
    p.setPen(QPen(Qt::black, 1, Qt::DashLine));
    p.drawRect(row.adjusted(1, 1, -2, -2));
  }
}

void RingStripWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  if (!snap_ || rows_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("this card has no rings in this stage"));
    return;
  }
  p.drawText(
      QRect(4, 0, width() - 8, headerHeight(*this)), Qt::AlignVCenter | Qt::TextWordWrap,
      tr("Rings into this card: blue = published, pale = written not yet published, hatched = read "
         "not yet freed; H head, T tail, dashed = producer's cached head; wN = wraps"));
  for (std::size_t i = 0; i < rows_.size(); ++i)
    paintRing(p, snap_->rings[rows_[i]],
              QRect(0, headerHeight(*this) + static_cast<int>(i) * kRowH, width(), kRowH));
}

void RingStripWidget::mousePressEvent(QMouseEvent* e) {
  const int i = rowAt(e->pos());
  if (i >= 0) {
    setSelectedRing(snap_->rings[i].id);
    emit ringClicked(snap_->rings[i].id);
  }
}

bool RingStripWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int i = rowAt(he->pos());
    if (i >= 0)
      QToolTip::showText(he->globalPos(), ringTooltip(snap_->rings[i]), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

}  // namespace moe::ui
