#include "ui/widgets/timeline_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/widgets/timeline_legend.h"
#include "ui/widgets/timeline_widget.h"

namespace moe::ui {

TimelineTab::TimelineTab(QWidget* parent) : QWidget(parent) {
  // Named so that tests find them (findChild), as the legend below.
  timeline_ = new TimelineWidget;
  timeline_->setObjectName("timelineGantt");
  auto* head = new QHBoxLayout;
  lanes_ = new QComboBox;
  lanes_->setObjectName("timelineLanes");
  lanes_->addItem(tr("one lane per core"), static_cast<int>(TimelineWidget::Grouping::PerCore));
  lanes_->addItem(tr("per card, one lane per role"),
                  static_cast<int>(TimelineWidget::Grouping::ByRole));
  lanes_->setToolTip(
      tr("Per core: every core's activities. Per role: the share of each role's cores working on "
         "each card, which shows a2a, gemm and reduce-scatter overlapping in the fused operator"));
  connect(lanes_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    timeline_->setGrouping(static_cast<TimelineWidget::Grouping>(lanes_->itemData(i).toInt()));
  });
  head->addWidget(new QLabel(tr("Lanes:")));
  head->addWidget(lanes_);
  head->addStretch(1);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 4, 0, 0);
  lay->addLayout(head);
  lay->addWidget(timeline_, 1);
  auto* legend = new TimelineLegend;
  legend->setObjectName("timelineLegend");
  lay->addWidget(legend);
  // Lanes are laid out while painting: update the key afterwards, not inside the paint.
  connect(
      timeline_, &TimelineWidget::lanesRebuilt, legend,
      [this, legend] { legend->setContent(timeline_->legendContent()); }, Qt::QueuedConnection);
}

void TimelineTab::setLanesFor(bool fusedOperator) {
  lanes_->setCurrentIndex(fusedOperator ? 1 : 0);
}

}  // namespace moe::ui
