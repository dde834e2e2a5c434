#include "ui/widgets/lesson_driver.h"

#include <QDockWidget>
#include <algorithm>

#include "core/run/design.h"
#include "ui/models/lesson_quantities.h"
#include "ui/run/run_controller.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/compare_view.h"
#include "ui/widgets/experts_view.h"
#include "ui/widgets/lesson_panel.h"
#include "ui/widgets/main_window.h"
#include "ui/widgets/redraw_tick.h"
#include "ui/widgets/run_controls.h"
#include "ui/widgets/view_registry.h"
#include "ui/widgets/view_set.h"

namespace moe::ui {

LessonDriver::LessonDriver(MainWindow& window, ViewSet& views, RunControls& controls,
                           RedrawTick& tick)
    : QObject(&window), window_(window), views_(views), controls_(controls), tick_(tick) {
  panel_ = new LessonPanel(builtinLessons(lessonViews()));
  panel_->setObjectName("lessonPanel");
  dock_ = new QDockWidget(tr("Lesson"));
  dock_->setObjectName("lesson");
  dock_->setWidget(panel_);
  dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                     QDockWidget::DockWidgetClosable);
  // Beside the views, above the Inspector: under them it took a projector's rows from the
  // views and shrank the Card view's cores to unreadable.
  window.addDockWidget(Qt::RightDockWidgetArea, dock_);
  window.splitDockWidget(dock_, views.inspectorDock(), Qt::Vertical);
  dock_->hide();  // the views get the room until a lesson is chosen (View or Help menu)
  connect(panel_, &LessonPanel::stepRequested, this, &LessonDriver::showStep);
  connect(window.controller(), &RunController::targetReached, this, [this] {
    tick_.redrawNow();
    measure();
    emit stepShown();
  });
}

void LessonDriver::showStep(const Lesson& lesson, int index) {
  if (index < 0 || index >= static_cast<int>(lesson.steps.size())) return;
  dock_->show();
  const LessonStep& step = lesson.steps[static_cast<std::size_t>(index)];
  step_ = step;
  checks_.clear();
  values_.clear();
  const Design shown = controls_.design();
  if (step.scenario.workload.kind != controls_.designsFor())
    controls_.setDesignChoices(step.scenario.workload.kind);
  if (const std::optional<Design> design = designFromName(step.design))
    controls_.showDesign(*design);
  tick_.dropScrub();
  // A step of the scenario, design and fault already loaded (most Next clicks) goes on
  // from where the run is, without running again from time 0 or clearing the views.
  const bool sameLoad = step.scenario == window_.scenario() && step.fault == window_.fault() &&
                        controls_.design() == shown;
  if (!sameLoad) window_.loadScenario(step.scenario, step.fault);
  QMetaObject::invokeMethod(window_.controller(),
                            [c = window_.controller(), t = step.target, sameLoad] {
                              sameLoad ? c->continueTo(t) : c->runFromStartTo(t);
                            });
  if (step.view == "compare")  // before its runs: the part is shown once they are laid out
    views_.view<CompareView>("compare")->showPart(
        comparePartFromName(step.show).value_or(ComparePart::Timelines));
  views_.lessonOpened(step.view, window_);
  if (step.card >= 0) views_.view<CardView>("card")->showCard(step.card);
  window_.select(step.selection);
  fitDock();
}

void LessonDriver::measure() {
  const auto live = tick_.live();
  if (!step_ || !live) return;
  // Selected again at the step's moment, so the element it names (a combine ring, listed
  // only once its stage runs) is unfolded and scrolled into view in this picture.
  window_.select(step_->selection);
  const Scenario& scenario = window_.scenario();
  const ExpertLoad& load = views_.view<ExpertsView>("experts")->load();
  const bool layer = scenario.workload.kind == WorkloadKind::MoeLayer;
  const LessonState state{*live,
                          scenario,
                          layer && !load.perExpert.empty() ? &load : nullptr,
                          step_->selection,
                          step_->card,
                          window_.verification().done && window_.verification().ok};
  checks_ = checkLessonStep(step_->expectStage, step_->expect, state);
  values_.clear();
  for (const LessonQuantity& q : lessonQuantities())
    values_.emplace_back(std::string(q.name), q.measure(state));
  panel_->setFilledNarration(fillLessonNarration(step_->narration, state));
  fitDock();
}

void LessonDriver::fitDock() {
  // The whole narration, and the Inspector below it the rest. Split half and half, a long
  // step's last lines were cut off at 1920x1080 while the Inspector stood half empty.
  QDockWidget* inspector = views_.inspectorDock();
  if (!dock_->isVisible() || dock_->isFloating() || inspector->isFloating()) return;
  const int total = dock_->height() + inspector->height();
  // The panel's needs plus the dock's own title bar and frame (the dock's minimum size hint
  // left the narration's last line 16 px short).
  const int need = panel_->minimumSizeHint().height() + dock_->height() - panel_->height();
  window_.resizeDocks({dock_, inspector}, {need, std::max(1, total - need)}, Qt::Vertical);
}

}  // namespace moe::ui
