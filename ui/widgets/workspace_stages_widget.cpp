#include "ui/widgets/workspace_stages_widget.h"

#include "ui/style/chrome.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "ui/models/selection.h"
#include "ui/style/palette.h"

namespace moe::ui {

namespace {
constexpr int kMinLineH = 16;
constexpr int kGroupGap = 8;
constexpr int kMinLabelW = 200;
constexpr int kMinCellW = 9;
constexpr int kMaxCellW = 44;

// "card 3 aic 7 partial sums" -> "aic 7 partial sums": the card is the view's.
QString stripLabel(const StagesSnap& s) {
  QString n = QString::fromStdString(s.name);
  const QString prefix = QString("card %1 ").arg(s.card);
  return n.startsWith(prefix) ? n.mid(prefix.size()) : n;
}
}  // namespace

QColor slotColor(SlotState s, bool usedBefore) {
  switch (s) {
    case SlotState::Free:
      return usedBefore ? reusedSlot() : emptyTrack();
    case SlotState::Filling:
      return unpublishedData();
    case SlotState::Full:
      return publishedData();
    case SlotState::Reading:
      return beingRead();
    case SlotState::Count:
      break;
  }
  return Qt::magenta;
}

QString slotStateText(SlotState s) {
  const auto n = slotStateName(s);
  return QString::fromLatin1(n.data(), static_cast<int>(n.size()));
}

WorkspaceStagesWidget::WorkspaceStagesWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(headerH_ + lineH());
}

QSize WorkspaceStagesWidget::sizeHint() const {
  return {640, contentHeight()};
}

int WorkspaceStagesWidget::lineH() const {
  return std::max(kMinLineH, fontMetrics().height() + 2);
}

int WorkspaceStagesWidget::valueW() const {
  return fontMetrics().horizontalAdvance(tr("%1/%2 in use, peak %3").arg(999).arg(999).arg(999)) +
         16;
}

int WorkspaceStagesWidget::slotsPerLine() const {
  return std::max(8, (width() - labelW_ - valueW()) / kMinCellW);
}

std::vector<WorkspaceStagesWidget::LegendItem> WorkspaceStagesWidget::legendLayout() const {
  const QFontMetrics fm = fontMetrics();
  const int box = std::max(12, fm.ascent() - 2), gap = fm.horizontalAdvance(QLatin1Char(' ')) * 2;
  std::vector<LegendItem> items = {
      {{}, {}, SlotState::Free, false, tr("free")},
      {{}, {}, SlotState::Filling, false, tr("filling (claimed, data on its way)")},
      {{}, {}, SlotState::Full, false, tr("full (flag set)")},
      {{}, {}, SlotState::Reading, false, tr("being read")},
      {{}, {}, SlotState::Free, true, tr("free again (read by all)")}};
  int x = 4, top = 4;
  for (LegendItem& it : items) {
    const int w = box + 4 + fm.horizontalAdvance(it.label);
    if (x > 4 && x + w > width() - 4) {  // next line
      x = 4;
      top += lineH();
    }
    it.swatch = QRect(x, top + (lineH() - box) / 2, box, box);
    it.text = QPoint(x + box + 4, top + (lineH() + fm.ascent() - fm.descent()) / 2);
    x += w + gap;
  }
  return items;
}

QString WorkspaceStagesWidget::caption() const {
  return tr("Card %1: one cell per slot, numbered by its occupant (a2a: unit, partial sums: "
            "tile, reduce-scatter: source rank)")
      .arg(card_);
}

QRect WorkspaceStagesWidget::captionRect() const {
  const auto legend = legendLayout();
  const int top = legend.back().swatch.center().y() + lineH() / 2 + 2;
  const QRect wrapped = fontMetrics().boundingRect(QRect(4, top, std::max(50, width() - 8), 10000),
                                                   Qt::TextWordWrap, caption());
  return QRect(4, top, std::max(50, width() - 8), wrapped.height());
}

void WorkspaceStagesWidget::layoutRows() {
  rows_.clear();
  headerH_ = captionRect().bottom() + 6;
  if (!snap_) return;
  labelW_ = kMinLabelW;
  for (const StagesSnap& s : snap_->workspace)
    if (s.card == card_)
      labelW_ = std::max(labelW_, fontMetrics().horizontalAdvance(stripLabel(s)) + 12);
  int y = headerH_;
  std::string group;
  for (std::size_t i = 0; i < snap_->workspace.size(); ++i) {
    const StagesSnap& s = snap_->workspace[i];
    if (s.card != card_) continue;
    if (!rows_.empty() && s.group != group) y += kGroupGap;
    group = s.group;
    const int lines = std::max(1, (s.slotCount() + slotsPerLine() - 1) / slotsPerLine());
    rows_.push_back(Row{static_cast<int>(i), y, lines});
    y += lines * lineH();
  }
}

int WorkspaceStagesWidget::contentHeight() const {
  if (rows_.empty()) return headerH_ + lineH();
  return rows_.back().top + rows_.back().lines * lineH() + 4;
}

void WorkspaceStagesWidget::setSnapshot(std::shared_ptr<const Snapshot> s, int card) {
  snap_ = std::move(s);
  card_ = card;
  const int before = contentHeight();
  layoutRows();
  if (contentHeight() != before) {
    setMinimumHeight(contentHeight());
    updateGeometry();
  }
  update();
}

void WorkspaceStagesWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  layoutRows();  // the slots per line and the legend's lines depend on the width
  setMinimumHeight(contentHeight());
}

void WorkspaceStagesWidget::setSelectedStrip(int id) {
  selected_ = id;
  update();
}

QRect WorkspaceStagesWidget::cellRect(const Row& row, int slot) const {
  const StagesSnap& s = snap_->workspace[static_cast<std::size_t>(row.strip)];
  const int perLine = std::min(s.slotCount(), slotsPerLine());
  const int barW = width() - labelW_ - valueW();
  const int cellW = std::clamp(perLine > 0 ? barW / perLine : barW, 1, kMaxCellW);
  const int line = slot / slotsPerLine(), col = slot % slotsPerLine();
  return QRect(labelW_ + col * cellW, row.top + line * lineH() + 2, cellW, lineH() - 4);
}

std::pair<int, int> WorkspaceStagesWidget::hit(const QPoint& p) const {
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const Row& row = rows_[r];
    if (p.y() < row.top || p.y() >= row.top + row.lines * lineH()) continue;
    const StagesSnap& s = snap_->workspace[static_cast<std::size_t>(row.strip)];
    for (int i = 0; i < s.slotCount(); ++i)
      if (cellRect(row, i).adjusted(0, -2, 0, 2).contains(p)) return {static_cast<int>(r), i};
    return {static_cast<int>(r), -1};
  }
  return {-1, -1};
}

void WorkspaceStagesWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  if (!snap_ || rows_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("this card has no workspace stages"));
    return;
  }
  // Legend: what each fill means, then the reading rule.
  for (const LegendItem& it : legendLayout()) {
    p.fillRect(it.swatch, slotColor(it.state, it.usedBefore));
    p.setPen(frameLine());
    p.drawRect(it.swatch);
    p.setPen(palette().text().color());
    p.drawText(it.text, it.label);
  }
  p.drawText(captionRect(), Qt::TextWordWrap, caption());
  QFont small = font();
  small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.75));
  for (const Row& row : rows_) {
    const StagesSnap& s = snap_->workspace[static_cast<std::size_t>(row.strip)];
    p.setFont(font());
    p.setPen(palette().text().color());
    p.drawText(QRect(4, row.top, labelW_ - 8, lineH()), Qt::AlignVCenter | Qt::AlignLeft,
               stripLabel(s));
    p.setFont(small);
    for (int i = 0; i < s.slotCount(); ++i) {
      const QRect c = cellRect(row, i);
      const SlotState st = s.states[static_cast<std::size_t>(i)];
      p.fillRect(c.adjusted(0, 0, -1, 0), slotColor(st, s.uses[static_cast<std::size_t>(i)] > 0));
      if (st == SlotState::Reading)
        p.fillRect(c.adjusted(0, 0, -1, 0), QBrush(consumedHatch(), Qt::FDiagPattern));
      if (c.width() >= 18 && st != SlotState::Free) {
        p.setPen(st == SlotState::Filling ? inkOnLight() : inkOnDark());
        p.drawText(c, Qt::AlignCenter, QString::number(s.items[static_cast<std::size_t>(i)]));
      }
    }
    p.setPen(QPen(frameLine(), 1));
    const QRect first = cellRect(row, 0);
    const QRect last = cellRect(row, std::min(s.slotCount(), slotsPerLine()) - 1);
    p.drawRect(QRect(first.topLeft(),
                     QPoint(last.right() - 1, first.bottom() + (row.lines - 1) * lineH())));
    p.setPen(palette().text().color());
    p.drawText(
        QRect(width() - valueW() + 6, row.top, valueW() - 8, lineH()), Qt::AlignVCenter,
        tr("%1/%2 in use, peak %3").arg(s.occupied).arg(s.slotCount()).arg(s.stats.peakOccupied));
    if (s.id == selected_) {
      p.setPen(QPen(selectionInk(), 1, Qt::DashLine));
      p.drawRect(QRect(1, row.top, width() - 3, row.lines * lineH() - 1));
    }
  }
}

void WorkspaceStagesWidget::mousePressEvent(QMouseEvent* e) {
  const auto [r, slot] = hit(e->pos());
  if (r < 0) return;
  const int id =
      snap_->workspace[static_cast<std::size_t>(rows_[static_cast<std::size_t>(r)].strip)].id;
  setSelectedStrip(id);
  emit stripClicked(id);
}

bool WorkspaceStagesWidget::event(QEvent* e) {
  if (e->type() == QEvent::FontChange) {  // presenter mode: lines and columns follow the font
    layoutRows();
    setMinimumHeight(contentHeight());
    updateGeometry();
  }
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const auto [r, slot] = hit(he->pos());
    if (r >= 0) {
      const StagesSnap& s =
          snap_->workspace[static_cast<std::size_t>(rows_[static_cast<std::size_t>(r)].strip)];
      QToolTip::showText(he->globalPos(), slot >= 0 ? slotTooltip(s, slot) : stagesTooltip(s),
                         this);
    } else {
      QToolTip::showText(
          he->globalPos(),
          tr("Workspace stages: flag-guarded slots that a producer fills and consumers read; "
             "STAGES bounds how many a2a units and partial tiles are in flight"),
          this);
    }
    return true;
  }
  return QWidget::event(e);
}

}  // namespace moe::ui
