#include "ui/widgets/ring_strip_widget.h"

#include "ui/style/chrome.h"

#include <QCoreApplication>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QStringList>
#include <QTimer>
#include <QToolTip>
#include <algorithm>

#include "ui/models/selection.h"
#include "ui/style/palette.h"
#include "ui/widgets/painted_text.h"

namespace moe::ui {

namespace {
constexpr int kRowH = 34;
// The key above the rings, wrapped to the view's width.
QString legendText() {
  return QCoreApplication::translate(
      "RingStripWidget",
      "Rings into this card, by kind (click a kind to fold or unfold it): blue = published, "
      "pale = written not yet published, hatched = read not yet freed; H head, T tail, "
      "dashed = producer's cached head; wN = wraps");
}
// As many lines as the key needs at width `w` (at least two), so it is never cut.
int headerHeight(const QWidget& w) {
  const QRect need = w.fontMetrics().boundingRect(QRect(0, 0, std::max(100, w.width() - 8), 100000),
                                                  Qt::TextWordWrap, legendText());
  return std::max(2 * w.fontMetrics().height(), need.height()) + 4;
}
// A group's header row: one line of text with room around it.
int groupHeaderHeight(const QWidget& w) {
  return w.fontMetrics().height() + 10;
}
// The value column fits the longest figure ("512.0 KiB/512.0 KiB w9999") in the widget's font.
int valueWidth(const QWidget& w) {
  return w.fontMetrics().horizontalAdvance("888.88 KiB/888.88 KiB w8888") + 12;
}
const QColor kPublished = publishedData();
const QColor kUnpublished = unpublishedData();
const QColor kHead = headMarker();
const QColor kTail = tailMarker();

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

int RingStripWidget::lineHeight(const Line& l) const {
  return l.ring < 0 ? groupHeaderHeight(*this) : kRowH;
}

int RingStripWidget::lineTop(std::size_t line) const {
  int y = headerHeight(*this);
  for (std::size_t i = 0; i < line; ++i) y += lineHeight(lines_[i]);
  return y;
}

QSize RingStripWidget::sizeHint() const {
  return {640, std::max(lineTop(lines_.size()), headerHeight(*this) + kRowH)};
}

bool RingStripWidget::isFolded(int group) const {
  return group >= 0 && group < groupCount() && folded_.count(groups_[group].title) > 0;
}

void RingStripWidget::setFolded(int group, bool folded) {
  if (group < 0 || group >= groupCount()) return;
  if (folded)
    folded_.insert(groups_[group].title);
  else
    folded_.erase(groups_[group].title);
  relayout();
}

int RingStripWidget::visibleRingRows() const {
  int n = 0;
  for (const Line& l : lines_) n += l.ring >= 0;
  return n;
}

void RingStripWidget::relayout() {
  const int before = lineTop(lines_.size());
  lines_.clear();
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    lines_.push_back({static_cast<int>(g), -1});
    if (folded_.count(groups_[g].title) == 0)
      for (int r : groups_[g].rings) lines_.push_back({static_cast<int>(g), r});
  }
  if (lineTop(lines_.size()) != before) {
    setMinimumHeight(std::max(lineTop(lines_.size()), headerHeight(*this) + kRowH));
    updateGeometry();
  }
  update();
}

void RingStripWidget::setSnapshot(std::shared_ptr<const Snapshot> s, int card) {
  snap_ = std::move(s);
  groups_ = snap_ ? ringGroups(*snap_, card) : std::vector<RingGroup>{};
  ringCount_ = 0;
  for (const RingGroup& g : groups_) ringCount_ += static_cast<int>(g.rings.size());
  // Each ring's name, and without the words every ring of its group starts with (the
  // header above says them): "card0 combine IPC <- card7 lane7" is "card7 lane7" under
  // "combine IPC <- card* lane*". The widest of each, for the name column.
  shortNames_.assign(snap_ ? snap_->rings.size() : 0, QString());
  nameW_ = shortNameW_ = 0;
  for (const RingGroup& g : groups_) {
    QStringList common;
    for (std::size_t k = 0; k < g.rings.size(); ++k) {
      const QStringList words = QString::fromStdString(snap_->rings[g.rings[k]].name).split(' ');
      if (k == 0) {
        common = words.mid(0, words.size() - 1);  // always keep the last word
        continue;
      }
      int n = 0;
      while (n < common.size() && n < words.size() - 1 && common[n] == words[n]) ++n;
      common = common.mid(0, n);
    }
    if (g.rings.size() < 2) common.clear();
    for (int r : g.rings) {
      const QString full = QString::fromStdString(snap_->rings[r].name);
      const QString shorter = full.split(' ').mid(common.size()).join(' ');
      shortNames_[static_cast<std::size_t>(r)] = shorter;
      nameW_ = std::max(nameW_, fontMetrics().horizontalAdvance(full));
      shortNameW_ = std::max(shortNameW_, fontMetrics().horizontalAdvance(shorter));
    }
  }
  // A kind met for the first time starts folded when the card lists many rings, so each
  // kind reads as one line; after that the user's choice stands, across steps and cards.
  std::string kinds;
  for (const RingGroup& g : groups_) {
    if (seenGroups_.insert(g.title).second && ringCount_ > kFoldAbove) folded_.insert(g.title);
    kinds += g.title + '\n';
  }
  relayout();
  // A new stage lists other kinds of rings: reveal the selected ring again, so a step that
  // reruns to the combine shows its combine ring and not the top of the dispatch groups.
  if (kinds != kinds_) {
    kinds_ = kinds;
    revealSelected_ = selected_ >= 0;
  }
  revealSelected();
}

bool RingStripWidget::fullNames() const {
  return nameW_ + 12 <= width() * 2 / 5;
}

int RingStripWidget::labelW() const {
  // As wide as the longest name, so no name is cut; at most two fifths of the row (the bar
  // needs the rest), else the names without their group's words.
  return std::max(120, (fullNames() ? nameW_ : shortNameW_) + 12);
}

void RingStripWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  const int h = std::max(lineTop(lines_.size()), headerHeight(*this) + kRowH);
  if (h != minimumHeight()) {
    setMinimumHeight(h);
    updateGeometry();
  }
}

void RingStripWidget::setSelectedRing(int id) {
  selected_ = id;
  revealSelected_ = id >= 0;
  revealSelected();
  update();
}

void RingStripWidget::revealSelected() {
  // A ring selected elsewhere (the inspector, a lesson) unfolds its group so it shows; if
  // it is not listed yet (selected before its stage's snapshot), on the next snapshot.
  for (std::size_t g = 0; g < groups_.size() && snap_ && revealSelected_; ++g)
    for (int r : groups_[g].rings)
      if (snap_->rings[r].id == selected_) {
        revealSelected_ = false;
        if (folded_.erase(groups_[g].title) > 0) relayout();
        // ... and scrolls it into view: a lesson about the combine rings must not leave
        // them below the fold under the dispatch groups. After the layout settles, so the
        // scroll area knows the unfolded height.
        QTimer::singleShot(0, this, [this, r] { scrollToRing(r); });
        break;
      }
}

void RingStripWidget::scrollToRing(int ringIndex) {
  QScrollArea* area = nullptr;
  for (QWidget* w = parentWidget(); w && !area; w = w->parentWidget())
    area = qobject_cast<QScrollArea*>(w);
  if (!area || !area->widget()) return;
  // The unfolded group's height must reach the scroll area before it can scroll there.
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  for (std::size_t i = 0; i < lines_.size(); ++i)
    if (lines_[i].ring == ringIndex) {
      // The group's header line too, so the ring reads with its kind.
      const int top = lineTop(i > 0 ? i - 1 : i);
      const int bottom = lineTop(i) + lineHeight(lines_[i]);
      const QPoint at = mapTo(area->widget(), QPoint(0, (top + bottom) / 2));
      area->ensureVisible(at.x(), at.y(), 0, (bottom - top) / 2 + 4);
      return;
    }
}

const RingStripWidget::Line* RingStripWidget::lineAt(const QPoint& p) const {
  int y = headerHeight(*this);
  for (const Line& l : lines_) {
    const int h = lineHeight(l);
    if (p.y() >= y && p.y() < y + h) return &l;
    y += h;
  }
  return nullptr;
}

void RingStripWidget::paintRing(QPainter& p, const RingSnap& r, const QRect& row) const {
  const QRectF bar(row.left() + labelW(), row.top() + 10,
                   row.width() - labelW() - valueWidth(*this), row.height() - 20);
  p.setPen(palette().text().color());
  drawFittedText(p, const_cast<RingStripWidget*>(this),
                 QRect(row.left() + 4, row.top(), labelW() - 8, row.height()),
                 Qt::AlignVCenter | Qt::AlignLeft,
                 fullNames() ? QString::fromStdString(r.name)
                             : shortNames_[static_cast<std::size_t>(&r - snap_->rings.data())]);
  p.fillRect(bar, emptyTrack());
  // Occupied: published [head, tail) and written-but-unpublished [tail, producerTail).
  fillRange(p, r.head, r.tail, r.capacity, bar, kPublished);
  fillRange(p, r.tail, r.producerTail, r.capacity, bar, kUnpublished);
  // Consumed but not yet freed: [head, consumerCursor), hatched over the occupied part.
  fillRange(p, r.head, r.consumerCursor, r.capacity, bar,
            QBrush(consumedHatch(), Qt::FDiagPattern));
  p.setPen(QPen(dividerLine(), 1));
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
    p.setPen(QPen(cachedHeadLine(), 1, Qt::DashLine));
    const double x = xOf(r.cachedHead, r.capacity, bar);
    p.drawLine(QPointF(x, bar.top() - 3), QPointF(x, bar.bottom() + 3));
  }
  p.setFont(font());
  p.setPen(palette().text().color());
  const double used = static_cast<double>(r.occupied());
  drawFittedText(
      p, const_cast<RingStripWidget*>(this),
      QRect(static_cast<int>(bar.right()) + 6, row.top(), valueWidth(*this) - 8, row.height()),
      Qt::AlignVCenter,
      QString("%1/%2 w%3")
          .arg(bytesText(used), bytesText(static_cast<double>(r.capacity)))
          .arg(r.stats.wraps));
  if (r.id == selected_) {
    p.setPen(QPen(selectionInk(), 1, Qt::DashLine));
    p.drawRect(row.adjusted(1, 1, -2, -2));
  }
}

void RingStripWidget::paintHeader(QPainter& p, const RingGroup& g, bool folded,
                                  const QRect& row) const {
  p.fillRect(row.adjusted(0, 1, 0, -1), palette().alternateBase());
  int holding = 0;
  std::int64_t used = 0, capacity = 0;
  for (int r : g.rings) {
    const RingSnap& ring = snap_->rings[r];
    holding += ring.occupied() > 0;
    used += ring.occupied();
    capacity += ring.capacity;
  }
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(palette().text().color());
  // The fold state as the usual disclosure triangle, then what the group is.
  const QString text = QString("%1 %2")
                           .arg(folded ? QChar(0x25B8) : QChar(0x25BE))
                           .arg(QString::fromStdString(g.title));
  const int titleW = std::min(p.fontMetrics().horizontalAdvance(text) + 12, row.width() / 2);
  drawFittedText(p, const_cast<RingStripWidget*>(this),
                 QRect(row.left() + 4, row.top(), titleW, row.height()), Qt::AlignVCenter, text);
  p.setFont(font());
  const QString counts =
      tr("%1 rings, %2 holding data (%3 of %4)")
          .arg(g.rings.size())
          .arg(holding)
          .arg(bytesText(static_cast<double>(used)), bytesText(static_cast<double>(capacity)));
  const int countsW = p.fontMetrics().horizontalAdvance(counts) + 12;
  drawFittedText(p, const_cast<RingStripWidget*>(this),
                 QRect(row.left() + 4 + titleW, row.top(), countsW, row.height()), Qt::AlignVCenter,
                 counts);
  if (!folded) return;
  // Folded: one cell per ring, darker the fuller it is, so a busy ring still stands out.
  const int left = row.left() + 4 + titleW + countsW, right = row.right() - 6;
  if (right - left < 20) return;
  const double cell = static_cast<double>(right - left) / static_cast<double>(g.rings.size());
  for (std::size_t i = 0; i < g.rings.size(); ++i) {
    const RingSnap& ring = snap_->rings[g.rings[i]];
    const double fill = ring.capacity > 0 ? static_cast<double>(ring.occupied()) /
                                                static_cast<double>(ring.capacity)
                                          : 0.0;
    const QRectF c(left + cell * static_cast<double>(i), row.top() + 5, std::max(1.0, cell - 1),
                   row.height() - 10);
    p.fillRect(c, emptyTrack());
    if (fill > 0) {
      QColor shade = kPublished;
      shade.setAlphaF(0.25 + 0.75 * std::min(1.0, fill));
      p.fillRect(c, shade);
    }
    if (ring.id == selected_) {
      p.setPen(QPen(selectionInk(), 1, Qt::DashLine));
      p.drawRect(c);
    }
  }
}

void RingStripWidget::paintEvent(QPaintEvent*) {
  beginPaintedText(this);
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  if (!snap_ || groups_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("this card has no rings in this stage"));
    return;
  }
  drawFittedText(p, this, QRect(4, 0, width() - 8, headerHeight(*this)),
                 Qt::AlignVCenter | Qt::TextWordWrap, legendText());
  int y = headerHeight(*this);
  for (const Line& l : lines_) {
    const QRect row(0, y, width(), lineHeight(l));
    if (l.ring < 0)
      paintHeader(p, groups_[l.group], isFolded(l.group), row);
    else
      paintRing(p, snap_->rings[l.ring], row);
    y += row.height();
  }
}

void RingStripWidget::mousePressEvent(QMouseEvent* e) {
  const Line* l = lineAt(e->pos());
  if (l == nullptr) return;
  if (l->ring < 0) {
    setFolded(l->group, !isFolded(l->group));
    return;
  }
  const int id = snap_->rings[l->ring].id;
  setSelectedRing(id);
  emit ringClicked(id);
}

bool RingStripWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const Line* l = lineAt(he->pos());
    if (l != nullptr && l->ring >= 0)
      QToolTip::showText(he->globalPos(), ringTooltip(snap_->rings[l->ring]), this);
    else if (l != nullptr)
      QToolTip::showText(
          he->globalPos(),
          tr("Click to %1 these rings").arg(isFolded(l->group) ? tr("unfold") : tr("fold")), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

}  // namespace moe::ui
