#include "ui/widgets/run_timeline_widget.h"

#include "ui/style/chrome.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "ui/style/palette.h"

namespace moe::ui {

namespace {
constexpr int kRightMargin = 12;
}

RunTimelineWidget::RunTimelineWidget(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void RunTimelineWidget::setData(RunTimelineData d) {
  data_ = std::move(d);
  updateGeometry();
  update();
}

void RunTimelineWidget::setScale(NiceScale usScale, int labelWidth, bool tickLabels) {
  scale_ = usScale;
  labelW_ = labelWidth;
  tickLabels_ = tickLabels;
  updateGeometry();
  update();
}

TimeAxis RunTimelineWidget::axis() const {
  TimeAxis a;
  a.left = labelW_;
  a.t0 = 0;
  const int plot = std::max(50, width() - labelW_ - kRightMargin);
  a.psPerPx = scale_.end * static_cast<double>(kUs) / plot;
  return a;
}

int RunTimelineWidget::rowH() const {
  return fontMetrics().height() + 4;
}

// Lanes are labelled in a smaller font, so a stack of three runs fits under the table.
QFont RunTimelineWidget::laneFont() const {
  QFont f = font();
  f.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.85));
  return f;
}

int RunTimelineWidget::laneH() const {
  return QFontMetrics(laneFont()).height() + 1;
}

QString RunTimelineWidget::laneLabel(const RunTimelineData::RoleLane& l) const {
  return tr("%1 (%2)").arg(roleText(l.role)).arg(l.cores);
}

int RunTimelineWidget::labelWidthNeeded() const {
  int w = 0;
  const QFontMetrics small(laneFont());
  for (const auto& l : data_.roles) w = std::max(w, small.horizontalAdvance(laneLabel(l)));
  QFont bold = font();
  bold.setBold(true);
  return std::max(w, QFontMetrics(bold).horizontalAdvance(header())) + 12;
}

QSize RunTimelineWidget::sizeHint() const {
  // Name and stage bands, one lane per role, the tick values under the last run.
  const int h = (tickLabels_ ? 2 : 1) * rowH() + static_cast<int>(data_.roles.size()) * laneH() + 6;
  return {600, h};
}

QString RunTimelineWidget::header() const {
  return tr("%1 %2").arg(data_.name, timeText(data_.end));
}

void RunTimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const TimeAxis ax = axis();
  const QFontMetrics fm = fontMetrics();
  const QColor text = palette().text().color();
  // The run and its length in the label column, its stages as bands beside them,
  // alternating shades; a stage's name is written only where it fits whole (the tooltip
  // names every stage).
  int y = 2;
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(text);
  p.drawText(QRect(4, y, labelW_ - 4, rowH()), Qt::AlignVCenter | Qt::AlignLeft, header());
  p.setFont(font());
  for (std::size_t i = 0; i < data_.stages.size(); ++i) {
    const auto& s = data_.stages[i];
    const double x0 = ax.x(static_cast<double>(s.start)), x1 = ax.x(static_cast<double>(s.end));
    const QRectF band(x0, y + 1, std::max(1.0, x1 - x0), rowH() - 2);
    p.fillRect(band, stageBand(static_cast<int>(i)));
    if (fm.horizontalAdvance(s.name) + 6 <= x1 - x0) {
      p.setPen(text);
      p.drawText(band, Qt::AlignCenter, s.name);
    }
  }
  const int lanesTop = y;
  y += rowH();
  // Role lanes: height = share working (dark), pale above it = share waiting.
  const double bucketPs = static_cast<double>(data_.end) / std::max(1, data_.buckets);
  const double xEnd = ax.x(static_cast<double>(data_.end));
  p.setFont(laneFont());
  for (const auto& l : data_.roles) {
    const int h = laneH() - 1;
    p.setPen(text);
    p.drawText(QRect(4, y, labelW_ - 8, h + 1), Qt::AlignVCenter | Qt::AlignLeft, laneLabel(l));
    p.fillRect(QRectF(ax.left, y, xEnd - ax.left, h), emptyTrack());
    const QColor dark = roleColor(l.role).darker(115), pale = paleOf(roleColor(l.role));
    for (int b = 0; b < data_.buckets; ++b) {
      const double x0 = ax.x(b * bucketPs), x1 = ax.x((b + 1) * bucketPs);
      const double hw = l.working[static_cast<std::size_t>(b)] * h;
      const double hs = l.waiting[static_cast<std::size_t>(b)] * h;
      if (hw > 0) p.fillRect(QRectF(x0, y + h - hw, x1 - x0, hw), dark);
      if (hs > 0) p.fillRect(QRectF(x0, y + h - hw - hs, x1 - x0, hs), pale);
    }
    y += laneH();
  }
  p.setFont(font());
  // Ticks of the shared scale: a faint line through the lanes; the values under the last run.
  for (double t = 0; t <= scale_.end + 1e-9; t += scale_.step) {
    const double x = ax.x(t * static_cast<double>(kUs));
    p.setPen(dividerLine());
    p.drawLine(QPointF(x, lanesTop), QPointF(x, y));
    if (!tickLabels_) continue;
    const QString label = QString::number(t, 'g', 6) + (t == 0 ? tr(" us") : QString());
    const int lw = fm.horizontalAdvance(label);
    const double lx = std::clamp(x - lw / 2.0, 0.0, static_cast<double>(width() - lw));
    p.setPen(text);
    p.drawText(QPointF(lx, y + fm.ascent() + 2), label);
  }
  // The run's end: the longer runs go on past it.
  p.setPen(QPen(text, 2));
  p.drawLine(QPointF(xEnd, lanesTop), QPointF(xEnd, y));
}

bool RunTimelineWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const Time t = static_cast<Time>(axis().t(he->pos().x()));
    QString tip = tr("%1 took %2. All timelines here share one time axis: equal times sit at "
                     "the same x. Lane height: share of the role's cores working (dark) and "
                     "waiting (pale); roles busy under 2% of the run have no lane.")
                      .arg(data_.name, timeText(data_.end));
    if (data_.truncated) tip += tr(" The bounded activity log kept only the later activity.");
    for (const auto& s : data_.stages)
      if (t >= s.start && t < s.end)
        tip = tr("%1, stage %2: %3 to %4 (%5)")
                  .arg(data_.name, s.name, timeText(s.start), timeText(s.end),
                       timeText(s.end - s.start));
    QToolTip::showText(he->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace moe::ui
