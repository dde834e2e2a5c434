#include "ui/widgets/timeline_widget.h"

#include "ui/style/chrome.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <iterator>

#include "ui/style/palette.h"

namespace moe::ui {

namespace {
constexpr int kCoreLabelW = 90;   // per core: only card names
constexpr int kLaneLabelW = 160;  // role and summary lanes are labelled
constexpr int kRowH = 5;          // one core
constexpr int kRoleH = 16;        // one role on one card
constexpr int kSummaryH = 14;     // one summary lane
constexpr int kAxisH = 22;
constexpr int kStageRows = 2;
// Text rows are sized from the font, so a larger (presenter) font never runs into the axis:
// below the axis two rows of stage names (a name too long for its stage moves to the second
// row), then (fused workload) the overlap figure, then each card's heading above its lanes.
int textRow(const QFontMetrics& fm) {
  return fm.height() + 2;
}

// Adds the pixel coverage of [x0, x1) (plot pixels, fractional) to cov: whole pixels via
// the difference array, the two partial ends directly.
void cover(double x0, double x1, std::vector<double>& cov, std::vector<double>& diff) {
  const int w = static_cast<int>(cov.size());
  x0 = std::max(0.0, x0);
  x1 = std::min<double>(w, x1);
  if (x1 <= x0) return;
  const int i0 = static_cast<int>(x0), i1 = static_cast<int>(x1);
  if (i0 == i1) {
    cov[i0] += x1 - x0;
    return;
  }
  cov[i0] += i0 + 1 - x0;
  diff[i0 + 1] += 1;
  diff[i1] -= 1;
  if (i1 < w) cov[i1] += x1 - i1;
}
}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(400, 200);
  axis_.left = kCoreLabelW;
}

void TimelineWidget::clear() {
  model_.clear();
  lanes_.clear();
  lanesDirty_ = true;
  fitted_ = false;
  yOffset_ = 0;
  scrub_ = 0;
  update();
}

void TimelineWidget::append(const std::vector<ActivityInterval>& iv) {
  model_.append(iv);
  if (model_.lanesChanged()) lanesDirty_ = true;
  update();
}

void TimelineWidget::setGrouping(Grouping g) {
  if (g == grouping_) return;
  grouping_ = g;
  lanesDirty_ = true;
  yOffset_ = 0;
  update();
}

int TimelineWidget::laneCount() const {
  const_cast<TimelineWidget*>(this)->rebuildLanes();
  return static_cast<int>(lanes_.size());
}

void TimelineWidget::rebuildLanes() {
  if (!lanesDirty_ || !snap_) return;
  lanesDirty_ = false;
  lanes_.clear();
  const bool hasComm = model_.hasCommunication();
  // The plot starts after the label column (t0 stays the time at its left edge).
  axis_.left = grouping_ == Grouping::PerCore && !hasComm ? kCoreLabelW : kLaneLabelW;
  const int row = textRow(fontMetrics());
  int y = kAxisH + kStageRows * row + (hasComm ? row : 0);
  int card = -1;
  const auto grouping =
      grouping_ == Grouping::PerCore ? TimelineGrouping::PerCore : TimelineGrouping::ByRole;
  for (TimelineLane& m : model_.lanes(grouping, *snap_)) {
    Lane l;
    static_cast<TimelineLane&>(l) = std::move(m);
    if (l.kind != Lane::Kind::Summary && l.card != card) {
      card = l.card;
      y += row;
    }
    l.top = y;
    l.height = l.kind == Lane::Kind::Core ? kRowH : l.kind == Lane::Kind::Role ? kRoleH : kSummaryH;
    y += l.height;
    lanes_.push_back(std::move(l));
  }
  emit lanesRebuilt();
}

TimelineLegendContent TimelineWidget::legendContent() const {
  TimelineLegendContent c;
  c.perCore = grouping_ == Grouping::PerCore;
  for (const Lane& l : lanes_) {
    if (l.kind == Lane::Kind::Summary) c.summary = true;
    if (l.kind == Lane::Kind::Role &&
        std::find(c.roles.begin(), c.roles.end(), l.role) == c.roles.end())
      c.roles.push_back(l.role);
  }
  return c;
}

void TimelineWidget::setSnapshot(std::shared_ptr<const Snapshot> s) {
  if (!snap_ || !s || snap_->cores.size() != s->cores.size()) lanesDirty_ = true;
  // Cores in a role whose first span has not closed yet are in its lane too.
  if (s) model_.noteRoles(*s);
  if (model_.lanesChanged()) lanesDirty_ = true;
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
  axis_.psPerPx = static_cast<double>(end) / std::max(50, width() - axis_.left - 10);
  fitted_ = snap_ && snap_->finished;
}

void TimelineWidget::setScrubTime(Time t) {
  scrub_ = t;
  update();
}

int TimelineWidget::laneAt(int y) const {
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    const int top = lanes_[i].top - yOffset_;
    if (y >= top && y < top + lanes_[i].height) return static_cast<int>(i);
  }
  return -1;
}

void TimelineWidget::paintCoreLane(QPainter& p, const Lane& lane, int y, Time tLeft,
                                   Time tRight) const {
  const int right = width();
  const auto& v = model_.bars(lane.core);
  // Intervals of a core are closed in time order: binary search the first visible one.
  auto it =
      std::lower_bound(v.begin(), v.end(), tLeft, [](const Bar& b, Time t) { return b.end < t; });
  double lastX = -1;
  for (; it != v.end() && it->start <= tRight; ++it) {
    const double x0 = std::max<double>(axis_.left, axis_.x(static_cast<double>(it->start)));
    const double x1 = std::min<double>(right, axis_.x(static_cast<double>(it->end)));
    if (x1 < lastX + 0.5 && x1 - x0 < 1) continue;  // sub-pixel bars behind a drawn one
    p.fillRect(QRectF(x0, y, std::max(1.0, x1 - x0), kRowH - 1), activityColor(it->activity));
    lastX = x1;
  }
  // The activity still open at the snapshot time.
  const CoreSnap* cs =
      lane.core < static_cast<int>(snap_->cores.size()) ? &snap_->cores[lane.core] : nullptr;
  if (cs && cs->activity != Activity::Idle && cs->activity != Activity::Done) {
    const double x0 = std::max<double>(axis_.left, axis_.x(static_cast<double>(cs->since)));
    const double x1 = std::min<double>(right, axis_.x(static_cast<double>(snap_->now)));
    if (x1 > x0)
      p.fillRect(QRectF(x0, y, x1 - x0, kRowH - 1), activityColor(cs->activity).lighter(130));
  }
}

void TimelineWidget::paintRoleLane(QPainter& p, const Lane& lane, int y, Time tLeft,
                                   Time tRight) const {
  const int w = std::max(0, width() - axis_.left);
  std::vector<double> work(w, 0), wait(w, 0), dWork(w + 1, 0), dWait(w + 1, 0);
  auto px = [this](Time t) { return axis_.x(static_cast<double>(t)) - axis_.left; };
  for (int core : lane.cores) {
    const auto& v = model_.bars(core);
    auto it =
        std::lower_bound(v.begin(), v.end(), tLeft, [](const Bar& b, Time t) { return b.end < t; });
    for (; it != v.end() && it->start <= tRight; ++it) {
      if (it->role != lane.role) continue;
      if (isWorking(it->activity)) cover(px(it->start), px(it->end), work, dWork);
      if (isWaiting(it->activity)) cover(px(it->start), px(it->end), wait, dWait);
    }
    const CoreSnap& cs = snap_->cores[core];
    if (cs.role == lane.role && isWorking(cs.activity))
      cover(px(cs.since), px(snap_->now), work, dWork);
    if (cs.role == lane.role && isWaiting(cs.activity))
      cover(px(cs.since), px(snap_->now), wait, dWait);
  }
  const double n = static_cast<double>(lane.cores.size());
  const int h = lane.height - 2;
  const QColor full = roleColor(lane.role).darker(115), quiet = paleOf(roleColor(lane.role));
  p.fillRect(QRect(axis_.left, y, w, h), laneTrack());
  // Run-length: one rectangle per run of columns with the same working/waiting heights.
  double runW = 0, runD = 0;
  int start = 0, hw = -1, hs = -1;
  auto flush = [&](int end) {
    if (hw < 0 || end <= start) return;
    if (hw > 0) p.fillRect(QRect(axis_.left + start, y + h - hw, end - start, hw), full);
    if (hs > 0) p.fillRect(QRect(axis_.left + start, y + h - hw - hs, end - start, hs), quiet);
  };
  for (int i = 0; i < w; ++i) {
    runW += dWork[i];
    runD += dWait[i];
    const double fw = std::clamp((work[i] + runW) / n, 0.0, 1.0);
    const double fs = std::clamp((wait[i] + runD) / n, 0.0, 1.0 - fw);
    const int cw = static_cast<int>(std::lround(fw * h)),
              cs = static_cast<int>(std::lround(fs * h));
    if (cw != hw || cs != hs) {
      flush(i);
      start = i;
      hw = cw;
      hs = cs;
    }
  }
  flush(w);
}

void TimelineWidget::paintSummaryLane(QPainter& p, const Lane& lane, int y, Time tLeft,
                                      Time tRight) const {
  const int right = width();
  const int h = lane.height - 3;
  auto span = [&](Time s, Time e, const QColor& c) {
    const Time a = std::max(s, tLeft), b = std::min(e, tRight);
    if (b <= a) return;
    const double x0 = std::max<double>(axis_.left, axis_.x(static_cast<double>(a)));
    const double x1 = std::min<double>(right, axis_.x(static_cast<double>(b)));
    p.fillRect(QRectF(x0, y, std::max(1.0, x1 - x0), h),
               c);  // at least a pixel: short spans stay visible
  };
  auto visible = [&](const IntervalUnion& u) {
    auto it = u.spans().upper_bound(tLeft);
    if (it != u.spans().begin()) --it;
    return it;
  };
  // Open activities count as running until the snapshot time.
  const IntervalUnion comm = model_.communicationAt(*snap_), compute = model_.computeAt(*snap_);
  if (lane.summary == Summary::Compute || lane.summary == Summary::Communication) {
    const IntervalUnion& u = lane.summary == Summary::Compute ? compute : comm;
    const QColor c =
        lane.summary == Summary::Compute ? roleColor(Role::Gemm) : roleColor(Role::A2A);
    for (auto it = visible(u); it != u.spans().end() && it->first <= tRight; ++it)
      span(it->first, it->second, c);
    return;
  }
  // Overlap: each communication span, green where compute runs too, red where it does not.
  auto ct = visible(compute);
  for (auto it = visible(comm); it != comm.spans().end() && it->first <= tRight; ++it) {
    Time t = it->first;
    while (ct != compute.spans().end() && ct->second <= t) ++ct;
    for (auto c = ct; t < it->second; ++c) {
      if (c == compute.spans().end() || c->first >= it->second) {
        span(t, it->second, exposedCommunicationColor());
        break;
      }
      if (c->first > t) span(t, c->first, exposedCommunicationColor());
      const Time hiddenEnd = std::min(c->second, it->second);
      span(std::max(t, c->first), hiddenEnd, hiddenCommunicationColor());
      t = hiddenEnd;
    }
  }
}

QString TimelineWidget::laneLabel(const Lane& lane) const {
  switch (lane.kind) {
    case Lane::Kind::Summary:
      return lane.summary == Summary::Compute         ? tr("compute (gemm)")
             : lane.summary == Summary::Communication ? tr("comm (a2a + rs)")
                                                      : tr("comm hidden?");
    case Lane::Kind::Role:
      return tr("%1 (%2)").arg(roleText(lane.role)).arg(lane.cores.size());
    case Lane::Kind::Core:
      break;
  }
  return {};
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  rebuildLanes();  // first: it sets the label column the fit depends on
  if (fitPending_) applyFit();
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  if (lanes_.empty() || !snap_) {
    p.drawText(rect(), Qt::AlignCenter, tr("no activity yet: run or step the emulation"));
    return;
  }
  const Time tLeft = static_cast<Time>(axis_.t(axis_.left));
  const Time tRight = static_cast<Time>(axis_.t(width()));
  paintLanes(p, tLeft, tRight);
  p.setFont(font());
  if (model_.hasCommunication()) paintHiddenShare(p);
  // Stage marks, the time axis and the scrubber on top.
  paintTimeAxis(p, tLeft, tRight);
  paintStageMarks(p);
  const double sx = axis_.x(static_cast<double>(scrub_));
  if (sx >= axis_.left && sx <= width()) {
    p.setPen(QPen(scrubLine(), 2));
    p.drawLine(QPointF(sx, 0), QPointF(sx, height()));
  }
}

void TimelineWidget::paintLanes(QPainter& p, Time tLeft, Time tRight) const {
  const int right = width();
  QFont small = font();
  small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
  // Per-core lanes are too thin for a label each: every k-th core is numbered, k chosen so
  // the small labels never overlap.
  const int labelEvery = std::max(1, (QFontMetrics(small).height() + kRowH) / kRowH);
  int card = -1, coreInCard = 0;
  for (const Lane& lane : lanes_) {
    const int y = lane.top - yOffset_;
    if (lane.kind != Lane::Kind::Summary && lane.card != card) {
      card = lane.card;
      coreInCard = 0;
      const int gy = y - 2;
      if (gy - fontMetrics().ascent() > kAxisH && gy < height()) {
        p.setFont(font());
        p.setPen(palette().text().color());
        p.drawText(QPoint(4, gy - fontMetrics().descent()), tr("card %1").arg(card));
        p.setPen(laneDivider());
        p.drawLine(axis_.left, gy, right, gy);
      }
    }
    if (y + lane.height < kAxisH || y >= height()) continue;
    if (lane.kind == Lane::Kind::Core) paintCoreLane(p, lane, y, tLeft, tRight);
    if (lane.kind == Lane::Kind::Role) paintRoleLane(p, lane, y, tLeft, tRight);
    if (lane.kind == Lane::Kind::Summary) paintSummaryLane(p, lane, y, tLeft, tRight);
    // Cores are named as the Card view names them: by kind and number within the kind
    // (AIV 0-39, AIC 0-19), counting afresh at each kind's first core.
    const CoreSnap* core =
        lane.kind == Lane::Kind::Core && lane.core < static_cast<int>(snap_->cores.size())
            ? &snap_->cores[static_cast<std::size_t>(lane.core)]
            : nullptr;
    if (core && core->index == 0) coreInCard = 0;
    if (core && coreInCard++ % labelEvery == 0) {
      p.setFont(small);
      p.setPen(palette().text().color());
      p.drawText(QPoint(14, y + QFontMetrics(small).ascent() - 1),
                 QString("%1 %2").arg(core->cube ? "AIC" : "AIV").arg(core->index));
    }
    const QString label = laneLabel(lane);
    if (!label.isEmpty()) {
      p.setFont(small);
      p.setPen(palette().text().color());
      p.drawText(QRect(14, y, axis_.left - 18, lane.height), Qt::AlignVCenter | Qt::AlignLeft,
                 label);
    }
  }
}

void TimelineWidget::paintHiddenShare(QPainter& p) const {
  // The headline figure above the summary lanes, from the same unions the lanes draw.
  const int y =
      kAxisH + kStageRows * textRow(fontMetrics()) + fontMetrics().ascent() + 1 - yOffset_;
  if (y <= kAxisH) return;
  const IntervalUnion comm = model_.communicationAt(*snap_);
  const IntervalUnion compute = model_.computeAt(*snap_);
  const Time total = comm.measure(), hidden = comm.overlap(compute);
  p.setPen(palette().text().color());
  p.drawText(
      QPoint(4, y),
      tr("Communication hidden under compute: %1% of %2 (green hidden, red exposed)")
          .arg(total > 0 ? 100.0 * static_cast<double>(hidden) / static_cast<double>(total) : 0.0,
               0, 'f', 1)
          .arg(timeText(total)));
}

void TimelineWidget::paintTimeAxis(QPainter& p, Time tLeft, Time tRight) const {
  const int right = width();
  p.fillRect(QRect(0, 0, right, kAxisH), palette().window());
  p.setPen(palette().text().color());
  const double span = static_cast<double>(tRight - tLeft);
  double step = 1;
  while (span / step > 10) step *= 10;
  if (span / step < 4) step /= 2;
  // Ticks far enough apart for their labels (the widest is the last one's): 1, 2, 5 x 10^k.
  const double widest = p.fontMetrics().horizontalAdvance(timeText(static_cast<long long>(tRight)));
  for (int i = 0; step / axis_.psPerPx < widest + 12 && i < 8; ++i) {
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
    step *= mantissa > 1.5 && mantissa < 3 ? 2.5 : 2.0;  // 1 -> 2 -> 5 -> 10
  }
  for (double t = std::ceil(tLeft / step) * step; t <= tRight; t += step) {
    const double x = axis_.x(t);
    p.drawLine(QPointF(x, kAxisH - 5), QPointF(x, kAxisH));
    // A label that would run off the right edge is left out rather than cut.
    const QString label = timeText(static_cast<long long>(t));
    if (x + 2 + p.fontMetrics().horizontalAdvance(label) <= right)
      p.drawText(QPointF(x + 2, kAxisH - 7), label);
  }
}

void TimelineWidget::paintStageMarks(QPainter& p) const {
  const int right = width();
  const QFontMetrics fm(p.font());
  const auto& marks = snap_->stageMarks;
  // Stage names are written whole, never shortened, at their stage's start: the longest
  // stages first, each on the first of the two rows where it overlaps no name placed
  // before; a name with room on neither row is left out (zoom in to read it). Longest
  // first, so a short stage's name never takes the row a long stage needs.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < marks.size(); ++i) {
    const double x = axis_.x(static_cast<double>(marks[i].start));
    if (x < axis_.left || x > right) continue;
    p.setPen(QPen(stageMarkLine(), 1, Qt::DotLine));
    p.drawLine(QPointF(x, kAxisH), QPointF(x, height()));
    order.push_back(i);
  }
  auto length = [&](std::size_t i) {
    return (marks[i].end >= 0 ? marks[i].end : snap_->now) - marks[i].start;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return length(a) > length(b); });
  std::vector<std::pair<double, double>> taken[kStageRows];  // [x0, x1) per row
  const double gap = fm.horizontalAdvance(' ');
  for (std::size_t i : order) {
    const QString name = QString::fromStdString(marks[i].name);
    // A name that would run past the right edge ends at it instead (the last stage's, when
    // its band is a little narrower than its name), if that keeps it mostly over its band.
    const double start = axis_.x(static_cast<double>(marks[i].start)) + 3;
    const double w = fm.horizontalAdvance(name);
    const double x0 = std::min(start, right - 2 - w);
    const double x1 = x0 + w;
    if (x0 < start - w / 2) continue;
    for (int r = 0; r < kStageRows; ++r) {
      const bool clear = std::none_of(taken[r].begin(), taken[r].end(), [&](const auto& t) {
        return x0 < t.second + gap && t.first < x1 + gap;
      });
      if (!clear) continue;
      p.setPen(palette().text().color());
      p.drawText(QPointF(x0, kAxisH + r * textRow(fm) + fm.ascent() + 1), name);
      taken[r].emplace_back(x0, x1);
      break;
    }
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
  if (!dragging_ && e->pos().x() >= axis_.left) {
    const Time t = std::max<Time>(0, static_cast<Time>(axis_.t(e->pos().x())));
    setScrubTime(t);
    emit scrubbed(t);
  }
  dragging_ = false;
}

QString TimelineWidget::laneTooltip(const Lane& lane, Time t) const {
  auto barAt = [this](int core, Time at) -> const Bar* {
    const auto& v = model_.bars(core);
    auto it =
        std::lower_bound(v.begin(), v.end(), at, [](const Bar& b, Time x) { return b.end <= x; });
    return it != v.end() && it->start <= at ? &*it : nullptr;
  };
  switch (lane.kind) {
    case Lane::Kind::Core: {
      QString text = QString::fromStdString(snap_->cores[lane.core].name);
      if (const Bar* b = barAt(lane.core, t))
        text += tr(": %1 as %2 from %3 to %4")
                    .arg(activityText(b->activity), roleText(b->role), timeText(b->start),
                         timeText(b->end));
      return text;
    }
    case Lane::Kind::Role: {
      int work = 0, wait = 0;
      for (int core : lane.cores) {
        const Bar* b = barAt(core, t);
        if (!b || b->role != lane.role) continue;
        work += isWorking(b->activity);
        wait += isWaiting(b->activity);
      }
      return tr("Card %1, %2 cores (%3): at %4, %5 working, %6 waiting. Height = share working "
                "(dark) and "
                "waiting (pale).")
          .arg(lane.card)
          .arg(roleText(lane.role))
          .arg(lane.cores.size())
          .arg(timeText(t))
          .arg(work)
          .arg(wait);
    }
    case Lane::Kind::Summary:
      switch (lane.summary) {
        case Summary::Compute:
          return tr("When any gemm (AIC) core was working: loading tiles or on the cube.");
        case Summary::Communication:
          return tr(
              "When any a2a or reduce-scatter (AIV) core was working: moving tiles, or summing "
              "partials.");
        case Summary::Overlap:
          return tr(
              "Communication time, green where some gemm core worked at the same time (hidden "
              "under "
              "compute), red where none did (exposed). The pipelined kernel hides most of it; the "
              "sequential baseline, with SyncAll between its phases, hides none.");
      }
  }
  return {};
}

bool TimelineWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const int i = laneAt(he->pos().y());
    QString text =
        tr("Gantt by card: per core (colour = activity) or per role (height = share of the role's "
           "cores "
           "working). Wheel zooms, drag pans, click moves the scrubber (red) and shows the cluster "
           "and "
           "card views at that time.");
    if (i >= 0 && snap_) text = laneTooltip(lanes_[i], static_cast<Time>(axis_.t(he->pos().x())));
    QToolTip::showText(he->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace moe::ui
