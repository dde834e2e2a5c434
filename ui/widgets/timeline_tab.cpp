#include "ui/widgets/timeline_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/run/frame.h"
#include "ui/run/run_controller.h"
#include "ui/widgets/timeline_legend.h"
#include "ui/widgets/timeline_widget.h"
#include "ui/widgets/view_registry.h"

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

// This view's entry in the workbench's table of views (view_registry.h): its tab, help,
// wiring and what it takes on each tick, frame, selection and scenario.
namespace {

ViewEntry timelineViewEntry() {
  return {
      .id = "timeline",
      .title = QT_TRANSLATE_NOOP("moe::ui::MainWindow", "Timeline"),
      .help = QT_TRANSLATE_NOOP(
          "moe::ui::ViewHelp",
          "<h3>Timeline</h3><p>Time runs left to right. Each lane is one core (colour = "
          "activity) or, per role, the share of that role's cores working (dark) and waiting "
          "(pale). Dotted lines mark where each stage begins. The red line is the time the "
          "other views show: click anywhere to see the whole machine at that moment.</p><p>For "
          "the fused operator the top lanes show communication hidden under compute (green) or "
          "exposed (red).</p>"),
      .create = [](ViewHost& host) -> QWidget* {
        auto* v = new TimelineTab;
        RunController* c = host.controller();
        QObject::connect(v->timeline(), &TimelineWidget::scrubbed, v,
                         [c](Time t) { c->requestScrub(t); });
        return v;
      },
      .show =
          [](QWidget* w, const ViewFeed& f) {
            TimelineWidget* t = static_cast<TimelineTab*>(w)->timeline();
            t->setSnapshot(f.live);  // the whole run so far; the cursor at the shown time
            t->setScrubTime(f.shown->now);
          },
      .append =
          [](QWidget* w, const Frame& f) {
            static_cast<TimelineTab*>(w)->timeline()->append(f.newIntervals);
          },
      .clear = [](QWidget* w) { static_cast<TimelineTab*>(w)->timeline()->clear(); },
      .scenario =
          [](QWidget* w, const ScenarioChange& c) {
            if (c.workloadChanged)
              static_cast<TimelineTab*>(w)->setLanesFor(c.scenario.workload.kind ==
                                                        WorkloadKind::AlltoallMatmulRs);
          },
  };
}

}  // namespace

MOE_VIEW(40, timelineViewEntry);

}  // namespace moe::ui
