#include "ui/widgets/core_grid_widget.h"

#include "ui/style/chrome.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStringList>
#include <QToolTip>
#include <algorithm>

#include "ui/models/selection.h"
#include "ui/style/palette.h"
#include "ui/widgets/painted_text.h"

namespace moe::ui {

namespace {
// "8 a2a, 16 reduce-scatter, 16 idle": the roles of a section's cores, in role order.
QString roleCounts(const Snapshot& s, const std::vector<int>& ids) {
  int n[static_cast<int>(Role::Count)] = {};
  for (int id : ids) ++n[static_cast<int>(s.cores[static_cast<std::size_t>(id)].role)];
  QStringList parts;
  for (int r = 0; r < static_cast<int>(Role::Count); ++r)
    if (n[r] > 0) parts << QString("%1 %2").arg(n[r]).arg(roleText(static_cast<Role>(r)));
  return parts.join(", ");
}

constexpr int kColumns = 10;
constexpr int kGap = 4;
// A section heading ("AIV (vector) cores ..."): one line of the widget's font and a gap, so a
// larger font never pushes its top out of the widget.
int sectionLabel(const QWidget& w) {
  return w.fontMetrics().height() + 4;
}
// The border of a core with no role (idle fill): plain and thin, unlike any activity's.
QColor noRoleBorder() {
  return frameLine();
}
// The smallest cell that still shows its core number (drawn at 0.8 of the widget's font).
int minNumberedCell(const QWidget& w) {
  return std::max(24, w.fontMetrics().height() * 3 / 2);
}
}  // namespace

CoreGridWidget::CoreGridWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
}

QSize CoreGridWidget::minimumSizeHint() const {
  const int cell = minNumberedCell(*this) + kGap;
  return {std::max(320, kGap + kColumns * cell),
          legendHeight() + 2 * sectionLabel(*this) + kGap + rows_ * cell};
}

void CoreGridWidget::setSnapshot(std::shared_ptr<const Snapshot> s, int card) {
  snap_ = std::move(s);
  card_ = card;
  layoutCells();
  update();
}

void CoreGridWidget::setSelectedCore(int id) {
  selected_ = id;
  update();
}

void CoreGridWidget::layoutCells() {
  cells_.clear();
  if (!snap_ || card_ < 0 || card_ >= static_cast<int>(snap_->cards.size())) return;
  const CardSnap& card = snap_->cards[card_];
  const int aivRows = (static_cast<int>(card.aiv.size()) + kColumns - 1) / kColumns;
  const int aicRows = (static_cast<int>(card.aic.size()) + kColumns - 1) / kColumns;
  const int rows = aivRows + aicRows;
  if (rows != rows_) {
    rows_ = rows;
    updateGeometry();  // the minimum height follows the card's core count
  }
  const int availH = height() - legendHeight() - 2 * sectionLabel(*this) - kGap;
  const int cell =
      std::max(8, std::min((width() - kGap) / kColumns - kGap, rows ? availH / rows - kGap : 0));
  int y = sectionLabel(*this);
  auto place = [&](const std::vector<int>& ids) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const int r = static_cast<int>(i) / kColumns, c = static_cast<int>(i) % kColumns;
      cells_.push_back(
          Cell{QRect(kGap + c * (cell + kGap), y + r * (cell + kGap), cell, cell), ids[i]});
    }
    y += ((static_cast<int>(ids.size()) + kColumns - 1) / kColumns) * (cell + kGap);
  };
  place(card.aiv);
  y += sectionLabel(*this);
  place(card.aic);
  legendTop_ = y + kGap;
}

int CoreGridWidget::legendHeight() const {
  return snap_ ? paintLegend(nullptr, 0) + kGap : 44;
}

int CoreGridWidget::coreAt(const QPoint& p) const {
  for (const Cell& c : cells_)
    if (c.rect.contains(p)) return c.core;
  return -1;
}

void CoreGridWidget::paintEvent(QPaintEvent*) {
  beginPaintedText(this);
  layoutCells();
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!snap_ || cells_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("no card"));
    return;
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  const CardSnap& card = snap_->cards[card_];
  p.setPen(palette().text().color());
  const int line = fontMetrics().height();
  drawFittedText(
      p, this, QRect(kGap, sectionLabel(*this) - 4 - line, width() - 2 * kGap, line),
      Qt::AlignLeft | Qt::AlignVCenter,
      tr("AIV (vector) cores of card %1: %2").arg(card_).arg(roleCounts(*snap_, card.aiv)));
  if (!card.aic.empty()) {
    const int aicTop = cells_[card.aiv.size()].rect.top();
    drawFittedText(p, this, QRect(kGap, aicTop - 4 - line, width() - 2 * kGap, line),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   tr("AIC (cube) cores: %1").arg(roleCounts(*snap_, card.aic)));
  }
  QFont small = font();
  small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
  p.setFont(small);
  for (const Cell& cell : cells_) {
    const CoreSnap& c = snap_->cores[cell.core];
    p.fillRect(cell.rect, roleColor(c.role));
    if (c.role == Role::Idle) {
      // No role, no program: a plain thin border, not the "done" of a core that worked.
      p.setPen(QPen(noRoleBorder(), 1));
      p.drawRect(cell.rect.adjusted(0, 0, -1, -1));
    } else {
      // Activity as a thick border: fill answers "what job", border answers "doing what now".
      p.setPen(QPen(activityColor(c.activity), std::max(2, cell.rect.width() / 10)));
      p.drawRect(cell.rect.adjusted(1, 1, -2, -2));
    }
    if (c.role != Role::Idle && isWaiting(c.activity)) {
      // Waiting cores also get a hatch, so they stand out even for colour-blind readers.
      p.fillRect(cell.rect.adjusted(3, 3, -3, -3),
                 QBrush(activityColor(c.activity), Qt::BDiagPattern));
    }
    if (cell.rect.width() >= minNumberedCell(*this)) {
      p.setPen(inkOnLight());
      p.drawText(cell.rect, Qt::AlignCenter, QString::number(c.index));
    }
    if (cell.core == selected_) {
      p.setPen(QPen(selectionInk(), 2, Qt::DashLine));
      p.drawRect(cell.rect.adjusted(-2, -2, 2, 2));
    }
  }
  paintLegend(&p, legendTop_);
}

int CoreGridWidget::paintLegend(QPainter* p, int top) const {
  // Legend: the roles this run uses (idle always) as filled swatches, activities as
  // bordered swatches, wrapped to the width. Without a painter it only measures, so the
  // cells leave the legend the rows it needs. Roles of other workloads would only be noise.
  if (!snap_) return top;
  bool used[static_cast<int>(Role::Count)] = {};
  used[static_cast<int>(Role::Idle)] = true;
  for (const CoreSnap& c : snap_->cores) used[static_cast<int>(c.role)] = true;
  QFont small = font();
  small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
  const QFontMetrics fm(small);
  const int rowH = std::max(18, fm.height() + 4);
  if (p) p->setFont(small);
  int x = kGap, y = top;
  auto swatch = [&](const QString& text, const QColor& fill, const QColor& border, int line = 2) {
    const int w = 14 + fm.horizontalAdvance(text) + 10;
    if (x + w > width()) {
      x = kGap;
      y += rowH;
    }
    if (p) {
      p->fillRect(QRect(x, y, 12, 12), fill);
      p->setPen(QPen(border, line));
      p->drawRect(QRect(x, y, 12, 12));
      p->setPen(palette().text().color());
      p->drawText(QPoint(x + 16, y + 6 + fm.ascent() / 2), text);
    }
    x += w;
  };
  auto heading = [&](const QString& text) {
    if (p) {
      p->setPen(palette().text().color());
      p->drawText(QPoint(x, y + 6 + fm.ascent() / 2), text);
    }
    x += fm.horizontalAdvance(text) + 8;
  };
  heading(tr("fill = role:"));
  for (int r = 0; r < static_cast<int>(Role::Count); ++r)
    if (used[r])
      swatch(roleText(static_cast<Role>(r)), roleColor(static_cast<Role>(r)),
             roleColor(static_cast<Role>(r)));
  x = kGap;
  y += rowH;
  heading(tr("border = activity:"));
  for (int a = 0; a < static_cast<int>(Activity::Count); ++a)
    swatch(activityText(static_cast<Activity>(a)), palette().base().color(),
           activityColor(static_cast<Activity>(a)));
  bool noRole = false;  // on this card
  if (card_ >= 0 && card_ < static_cast<int>(snap_->cards.size()))
    for (const auto* ids : {&snap_->cards[card_].aiv, &snap_->cards[card_].aic})
      for (int id : *ids) noRole |= snap_->cores[static_cast<std::size_t>(id)].role == Role::Idle;
  if (noRole) swatch(tr("thin = no role"), roleColor(Role::Idle), noRoleBorder(), 1);
  return y + rowH;
}

void CoreGridWidget::mousePressEvent(QMouseEvent* e) {
  const int id = coreAt(e->pos());
  if (id >= 0) {
    setSelectedCore(id);
    emit coreClicked(id);
  }
}

bool CoreGridWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int id = coreAt(he->pos());
    if (id >= 0 && snap_)
      QToolTip::showText(he->globalPos(), coreTooltip(*snap_, snap_->cores[id]), this);
    else
      QToolTip::showText(he->globalPos(),
                         tr("Cores of the selected card: fill = role, border = activity"), this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace moe::ui
