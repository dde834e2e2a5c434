#include "ui/widgets/timeline_widget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/widgets/palette.h"

namespace moe::ui {

namespace {
constexpr int kLabelW = 90;
constexpr int kRowH = 5;
constexpr int kCardGap = 14;
constexpr int kAxisH = 22;
constexpr std::size_t kMaxBarsPerCore = 200000;  // bounds memory on very long runs
}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(400, 200);
  axis_.left = kLabelW;
}

void TimelineWidget::clear() {
  bars_.clear();
  rowCore_.clear();
  count_ = 0;
  fitted_ = false;
  yOffset_ = 0;
  scrub_ = 0;
  update();
}

void TimelineWidget::append(const std::vector<ActivityInterval>& iv) {
  bool newCore = false;
  for (const ActivityInterval& a : iv) {
    // Idle and done spans are the absence of work: leaving them out keeps the chart readable.
    if (a.activity == Activity::Idle || a.activity == Activity::Done || a.end <= a.start) continue;
    if (a.core >= static_cast<int>(bars_.size())) bars_.resize(a.core + 1);
    auto& v = bars_[a.core];
    if (v.empty()) newCore = true;
    if (v.size() < kMaxBarsPerCore) v.push_back(Bar{a.start, a.end, a.activity, a.role});
    ++count_;
  }
  if (newCore) rebuildRows();
  update();
}

void TimelineWidget::rebuildRows() {
  rowCore_.clear();
  for (std::size_t c = 0; c < bars_.size(); ++c)
    if (!bars_[c].empty()) rowCore_.push_back(static_cast<int>(c));
}

void TimelineWidget::setSnapshot(std::shared_ptr<const Snapshot> s) {
  snap_ = std::move(s);
  if (!fitted_ && snap_ && snap_->now > 0) fitAll();
  update();
}

void TimelineWidget::fitAll() {
  fitPending_ = true;  // applied at the next paint, when the real width is known
  update();
}

void TimelineWidget::applyFit() {
  fitPending_ = false;
  const Time end = snap_ ? std::max<Time>(snap_->now, 1) : 1;
  axis_.t0 = 0;
  axis_.psPerPx = static_cast<double>(end) / std::max(50, width() - kLabelW - 10);
  fitted_ = snap_ && snap_->finished;
}

void TimelineWidget::setScrubTime(Time t) {
  scrub_ = t;
  update();
}

int TimelineWidget::rowTop(int row) const {
  // Rows of one card sit together; a gap and a label separate cards.
  int y = kAxisH - yOffset_;
  int card = -1;
  for (int r = 0; r <= row && r < static_cast<int>(rowCore_.size()); ++r) {
    const int c = snap_ && rowCore_[r] < static_cast<int>(snap_->cores.size()) ? snap_->cores[rowCore_[r]].card : 0;
    if (c != card) {
      y += kCardGap;
      card = c;
    }
    if (r < row) y += kRowH;
  }
  return y;
}

int TimelineWidget::rowOfY(int y) const {
  for (int r = 0; r < static_cast<int>(rowCore_.size()); ++r) {
    const int top = rowTop(r);
    if (y >= top && y < top + kRowH) return r;
  }
  return -1;
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  if (fitPending_) applyFit();
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  if (rowCore_.empty() || !snap_) {
    p.drawText(rect(), Qt::AlignCenter, tr("no activity yet: run or step the emulation"));
    return;
  }
  const int right = width();
  const Time tLeft = static_cast<Time>(axis_.t(kLabelW));
  const Time tRight = static_cast<Time>(axis_.t(right));
  int card = -1;
  int y = kAxisH - yOffset_;
  for (std::size_t r = 0; r < rowCore_.size(); ++r) {
    const int core = rowCore_[r];
    const CoreSnap* cs = core < static_cast<int>(snap_->cores.size()) ? &snap_->cores[core] : nullptr;
    const int c = cs ? cs->card : 0;
    if (c != card) {
      y += kCardGap;
      card = c;
      if (y > 0 && y < height()) {
        p.setPen(palette().text().color());
        p.drawText(QPoint(4, y - 3), tr("card %1").arg(c));
        p.setPen(QColor(0xd0, 0xd0, 0xd0));
        p.drawLine(kLabelW, y - 2, right, y - 2);
      }
    }
    if (y + kRowH >= kAxisH && y < height()) {
      const auto& v = bars_[core];
      // Intervals of a core are closed in time order: binary search the first visible one.
      auto it = std::lower_bound(v.begin(), v.end(), tLeft, [](const Bar& b, Time t) { return b.end < t; });
      double lastX = -1;
      for (; it != v.end() && it->start <= tRight; ++it) {
        const double x0 = std::max<double>(kLabelW, axis_.x(static_cast<double>(it->start)));
        const double x1 = std::min<double>(right, axis_.x(static_cast<double>(it->end)));
        if (x1 < lastX + 0.5 && x1 - x0 < 1) continue;  // sub-pixel bars behind a drawn one
        p.fillRect(QRectF(x0, y, std::max(1.0, x1 - x0), kRowH - 1), activityColor(it->activity));
        lastX = x1;
      }
      // The activity still open at the snapshot time.
      if (cs && cs->activity != Activity::Idle && cs->activity != Activity::Done) {
        const double x0 = std::max<double>(kLabelW, axis_.x(static_cast<double>(cs->since)));
        const double x1 = std::min<double>(right, axis_.x(static_cast<double>(snap_->now)));
        if (x1 > x0) p.fillRect(QRectF(x0, y, x1 - x0, kRowH - 1), activityColor(cs->activity).lighter(130));
      }
    }
    y += kRowH;
  }
  // Stage marks, the time axis and the scrubber on top.
  p.fillRect(QRect(0, 0, right, kAxisH), palette().window());
  p.setPen(palette().text().color());
  const double span = static_cast<double>(tRight - tLeft);
  double step = 1;
  while (span / step > 10) step *= 10;
  if (span / step < 4) step /= 2;
  for (double t = std::ceil(tLeft / step) * step; t <= tRight; t += step) {
    const double x = axis_.x(t);
    p.drawLine(QPointF(x, kAxisH - 5), QPointF(x, kAxisH));
    p.drawText(QPointF(x + 2, kAxisH - 7), timeText(static_cast<long long>(t)));
  }
  for (const StageMark& m : snap_->stageMarks) {
    const double x = axis_.x(static_cast<double>(m.start));
    if (x < kLabelW || x > right) continue;
    p.setPen(QPen(QColor(0x70, 0x70, 0x70), 1, Qt::DotLine));
    p.drawLine(QPointF(x, kAxisH), QPointF(x, height()));
    p.drawText(QPointF(x + 3, kAxisH + 10), QString::fromStdString(m.name));
  }
  const double sx = axis_.x(static_cast<double>(scrub_));
  if (sx >= kLabelW && sx <= right) {
    p.setPen(QPen(QColor(0xd0, 0x20, 0x20), 2));
    p.drawLine(QPointF(sx, 0), QPointF(sx, height()));
  }
}

void TimelineWidget::wheelEvent(QWheelEvent* e) {
  const double x = e->position().x();
  const double t = axis_.t(x);
  const double factor = e->angleDelta().y() > 0 ? 0.8 : 1.25;
  if (e->modifiers() & Qt::ShiftModifier) {
    yOffset_ = std::max(0, yOffset_ - e->angleDelta().y() / 4);
  } else {
    axis_.psPerPx = std::max(1.0, axis_.psPerPx * factor);
    axis_.t0 = t - (x - axis_.left) * axis_.psPerPx;  // keep the time under the cursor fixed
  }
  fitted_ = true;
  update();
}

void TimelineWidget::mousePressEvent(QMouseEvent* e) {
  pressPos_ = lastPos_ = e->pos();
  dragging_ = false;
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* e) {
  if (!(e->buttons() & Qt::LeftButton)) return;
  const QPoint d = e->pos() - lastPos_;
  if ((e->pos() - pressPos_).manhattanLength() > 4) dragging_ = true;
  if (dragging_) {
    axis_.t0 -= d.x() * axis_.psPerPx;
    yOffset_ = std::max(0, yOffset_ - d.y());
    fitted_ = true;
    update();
  }
  lastPos_ = e->pos();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
  if (!dragging_ && e->pos().x() >= kLabelW) {
    const Time t = std::max<Time>(0, static_cast<Time>(axis_.t(e->pos().x())));
    setScrubTime(t);
    emit scrubbed(t);
  }
  dragging_ = false;
}

bool TimelineWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int row = rowOfY(he->pos().y());
    QString text = tr("Per-core Gantt: colour = activity. Wheel zooms, drag pans, click moves the scrubber (red) "
                      "and shows the cluster and card views at that time.");
    if (row >= 0 && snap_) {
      const int core = rowCore_[row];
      const Time t = static_cast<Time>(axis_.t(he->pos().x()));
      const auto& v = bars_[core];
      auto it = std::lower_bound(v.begin(), v.end(), t, [](const Bar& b, Time x) { return b.end < x; });
      text = QString::fromStdString(snap_->cores[core].name);
      if (it != v.end() && it->start <= t)
        text += tr(": %1 as %2 from %3 to %4").arg(activityText(it->activity), roleText(it->role),
                                                    timeText(it->start), timeText(it->end));
    }
    QToolTip::showText(he->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace moe::ui
