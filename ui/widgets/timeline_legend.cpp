#include "ui/widgets/timeline_legend.h"

#include "ui/style/palette.h"

namespace moe::ui {

namespace {
QString swatch(const QColor& c, const QString& text) {
  // A filled square in the colour, then its meaning; non-breaking so a pair never splits.
  return QString("<span style='color:%1'>&#9632;</span>&nbsp;%2")
      .arg(c.name(), text.toHtmlEscaped());
}
}  // namespace

QString timelineLegendHtml(const TimelineLegendContent& c) {
  QStringList items;
  if (c.perCore) {
    for (Activity a : {Activity::Copy, Activity::Vector, Activity::Cube, Activity::WaitSpace,
                       Activity::WaitData, Activity::WaitSync})
      items << swatch(activityColor(a), activityText(a));
    items << QObject::tr("lighter: still running at the shown time");
  } else {
    for (Role r : c.roles) items << swatch(roleColor(r).darker(115), roleText(r));
    if (!c.roles.empty())
      items << swatch(paleOf(roleColor(c.roles.front())), QObject::tr("pale: waiting")) +
                   QObject::tr(" (bar height = share of the role's cores)");
  }
  if (c.summary)
    items << swatch(hiddenCommunicationColor(), QObject::tr("communication hidden under compute"))
          << swatch(exposedCommunicationColor(), QObject::tr("communication exposed"));
  return QObject::tr("<b>Key:</b> ") + items.join(" &nbsp; ");
}

TimelineLegend::TimelineLegend(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::RichText);
  setWordWrap(true);
  setToolTip(tr("What the timeline's colours mean for the lanes shown"));
  setContent({});
}

void TimelineLegend::setContent(const TimelineLegendContent& c) {
  setText(timelineLegendHtml(c));
}

}  // namespace moe::ui
