#include "ui/widgets/shared_timelines.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/widgets/nice_scale.h"
#include "ui/widgets/run_timeline_widget.h"

namespace moe::ui {

SharedTimelines::SharedTimelines(QWidget* parent) : QWidget(parent) {
  caption_ =
      new QLabel(tr("Timelines on one time axis: a run twice as long is drawn twice as wide"));
  caption_->setWordWrap(true);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(caption_);
  list_ = new QVBoxLayout;
  list_->setSpacing(6);
  lay->addLayout(list_);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  hide();
}

void SharedTimelines::setRuns(const std::vector<RunTimelineData>& runs) {
  for (RunTimelineWidget* t : timelines_) delete t;
  timelines_.clear();
  Time longest = 1;
  for (const RunTimelineData& d : runs) {
    auto* t = new RunTimelineWidget(this);
    t->setData(d);
    list_->addWidget(t);
    timelines_.push_back(t);
    longest = std::max(longest, d.end);
  }
  // One scale and one label column for all, so every plot starts at the same x and has the
  // same microseconds per pixel.
  const NiceScale scale = niceScale(static_cast<double>(longest) / static_cast<double>(kUs), 8);
  axisEndUs_ = scale.end;
  int labelW = 60;
  for (RunTimelineWidget* t : timelines_) labelW = std::max(labelW, t->labelWidthNeeded());
  for (RunTimelineWidget* t : timelines_) t->setScale(scale, labelW, t == timelines_.back());
  setVisible(!runs.empty());
}

}  // namespace moe::ui
