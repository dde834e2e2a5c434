#include "ui/widgets/main_window.h"

#include <QAction>
#include <QApplication>
#include <QEvent>
#include <QStatusBar>
#include <QTabWidget>

#include "core/run/expert_balance.h"
#include "core/scenario/scenario_json.h"
#include "ui/run/ab_runner.h"
#include "ui/run/background_runs.h"
#include "ui/run/compare_runner.h"
#include "ui/run/run_controller.h"
#include "ui/run/sweep_runner.h"
#include "ui/run/tune_runner.h"
#include "ui/style/presenter.h"
#include "ui/widgets/experts_view.h"
#include "ui/widgets/frame_log.h"
#include "ui/widgets/lesson_driver.h"
#include "ui/widgets/redraw_tick.h"
#include "ui/widgets/run_controls.h"
#include "ui/widgets/tune_diff_dialog.h"
#include "ui/widgets/view_set.h"
#include "ui/widgets/window_menus.h"

namespace moe::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), runs_(std::make_unique<BackgroundRuns>()) {
  setWindowTitle(tr("MoE Pipeline Workbench"));
  views_ = std::make_unique<ViewSet>(*this, *this);
  controls_ = new RunControls(*this, controller());
  tick_ = new RedrawTick(*views_, *controls_, this);
  lessons_ = new LessonDriver(*this, *views_, *controls_, *tick_);
  presenterAction_ = buildWindowMenus(*this, views_->tabs(), controller(), lessons_->dock(),
                                      [this](bool on) { setPresenterMode(on); });
  connect(controls_, &RunControls::designChanged, this, [this] { loadScenario(scenario_); });
  connect(controls_, &RunControls::resetRequested, this, [this] { views_->clear(); });
  connect(controls_, &RunControls::tuneRequested, this, [this] { startTune(); });
  connect(controls_, &RunControls::liveRequested, tick_, &RedrawTick::showLive);
  connect(tick_, &RedrawTick::redrawn, this, &MainWindow::frameShown);
  connect(lessons_, &LessonDriver::stepShown, this, &MainWindow::lessonStepShown);
  connectController();
  connectRunners();
  resize(1400, 900);
  loadScenario(defaultScenario());
}

MainWindow::~MainWindow() {
  runs_.reset();  // stops the worker threads before the views they report to go
}

void MainWindow::connectController() {
  RunController* c = controller();
  connect(c, &RunController::frameReady, tick_, &RedrawTick::take);
  connect(c, &RunController::verificationReady, this, [this](const Verification& v) {
    verification_ = v;
    if (tick_->frameLog() && v.done) tick_->frameLog()->verdictIn();
    controls_->showVerification(v);
  });
  connect(c, &RunController::modeChanged, this, [this](int m) {
    controls_->setPlaying(m != static_cast<int>(RunController::Mode::Paused));
  });
  connect(c, &RunController::failed, this,
          [this](const QString& m) { statusBar()->showMessage(m); });
  connect(c, &RunController::exported, this,
          [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  connect(c, &RunController::scrubReady, this, [this](const Snapshot& s) {
    tick_->takeScrub(s);
    emit scrubShown();
  });
}

void MainWindow::connectRunners() {
  connect(runs_->ab(), &AbRunner::finished, this, [this](int side, const AbSide& r) {
    abCompare()->setResult(side, r);
    emit abDone(side);
  });
  connect(runs_->compare(), &CompareRunner::finished, this, [this](const CompareResult& r) {
    compare()->setResult(r);
    // The scenario may have changed while the comparison ran.
    compare()->setStale(!(compared_ == scenario_));
    emit compareDone();
  });
  connect(runs_->compare(), &CompareRunner::failed, this,
          [this](const QString& m) { compare()->setBusy(m); });
  connect(runs_->tune(), &TuneRunner::progress, this, [this](int done, int total) {
    statusBar()->showMessage(tr("Tuning the streaming tiling: %1 of %2 runs").arg(done).arg(total));
  });
  connect(runs_->tune(), &TuneRunner::finished, this,
          [this](const Scenario& tuned, const QString& summary) { offerTuned(tuned, summary); });
  connect(runs_->tune(), &TuneRunner::failed, this, [this](const QString& m) {
    controls_->tuneAction()->setEnabled(true);
    statusBar()->showMessage(m, 12000);
    emit tuneDone();
  });
}

RunController* MainWindow::controller() const {
  return runs_->controller();
}
SweepRunner* MainWindow::sweepRunner() const {
  return runs_->sweep();
}
std::shared_ptr<const Snapshot> MainWindow::liveSnapshot() const {
  return tick_->live();
}
std::shared_ptr<const Snapshot> MainWindow::shownSnapshot() const {
  return tick_->shown();
}
QWidget* MainWindow::page(const QString& id) const {
  return views_->page(id);
}
void MainWindow::showView(const QString& id) {
  views_->show(id);
}
QAction* MainWindow::runAction() const {
  return controls_->runAction();
}
void MainWindow::step(bool forward) {
  controls_->step(forward);
}
void MainWindow::setPlaybackSpeed(double ps) {
  controls_->setPlaybackSpeed(ps);
}
void MainWindow::setScenarioValid(bool ok, const QString& why) {
  controls_->setScenarioValid(ok, why);
}
LessonPanel* MainWindow::lessonPanel() const {
  return lessons_->panel();
}
const std::vector<LessonCheck>& MainWindow::lessonChecks() const {
  return lessons_->checks();
}
const std::vector<std::pair<std::string, double>>& MainWindow::lessonValues() const {
  return lessons_->values();
}
void MainWindow::showLessonStep(const Lesson& lesson, int step) {
  lessons_->showStep(lesson, step);
}
bool MainWindow::setFrameLog(const QString& path) {
  return tick_->setFrameLog(path);
}
const FrameLog* MainWindow::frameLog() const {
  return tick_->frameLog();
}

void MainWindow::setPresenterMode(bool on) {
  presenter_ = on;
  if (presenterAction_) {
    QSignalBlocker block(presenterAction_);
    presenterAction_->setChecked(on);
  }
  if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance()))
    setHighContrast(*app, on);
}

void MainWindow::loadScenario(const Scenario& sc, Fault fault) {
  const bool workloadChanged = sc.workload.kind != controls_->designsFor() || !tick_->live();
  if (sc.workload.kind != controls_->designsFor()) controls_->setDesignChoices(sc.workload.kind);
  scenario_ = sc;
  fault_ = fault;
  tick_->dropScrub();
  const Design design = controls_->design();
  views_->scenarioLoaded({sc, design, workloadChanged, compared_});
  views_->clear();
  RunController* c = controller();
  QMetaObject::invokeMethod(c, [c, sc, design, fault] { c->load(sc, design, fault); });
}

void MainWindow::startAb(int side) {
  abCompare()->setBusy(side);
  const int design = static_cast<int>(controls_->design());
  QMetaObject::invokeMethod(
      runs_->ab(), [r = runs_->ab(), sc = scenario_, design, side] { r->run(sc, design, side); });
}

void MainWindow::rebalance(const std::vector<double>& perExpertLoad, int redundantExperts) {
  try {
    const Scenario next = rebalancedScenario(scenario_, perExpertLoad, redundantExperts);
    views_->view<ExpertsView>("experts")->beginRebalance();
    loadScenario(next);
    statusBar()->showMessage(
        tr("Rebalanced: EPLB table from this run's load with %1 redundant experts; re-running")
            .arg(redundantExperts),
        8000);
  } catch (const std::exception& e) {
    statusBar()->showMessage(tr("Cannot rebalance: %1").arg(QString::fromStdString(e.what())),
                             12000);
  }
}

void MainWindow::startTune(int budget) {
  controls_->tuneAction()->setEnabled(false);
  statusBar()->showMessage(tr("Tuning the streaming tiling…"));
  QMetaObject::invokeMethod(runs_->tune(),
                            [r = runs_->tune(), sc = scenario_, budget] { r->run(sc, budget); });
}

void MainWindow::offerTuned(const Scenario& tuned, const QString& summary) {
  controls_->tuneAction()->setEnabled(true);
  // Compared with the scenario as it is now: edits made while the search ran show as changes.
  auto* dialog = new TuneDiffDialog(scenario_, tuned, summary, this);
  if (dialog->changes().empty()) {
    delete dialog;
    statusBar()->showMessage(summary + tr(" — nothing to change: the current tiling stays"), 20000);
    emit tuneDone();
    return;
  }
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::finished, this, [this, dialog, summary](int result) {
    if (result == QDialog::Accepted) {
      loadScenario(dialog->tuned());
      statusBar()->showMessage(tr("Applied: %1").arg(summary), 20000);
    } else {
      statusBar()->showMessage(tr("Kept the current scenario; the tuned one was not applied"),
                               12000);
    }
    emit tuneDone();
  });
  dialog->open();  // window-modal, and the event loop keeps running
  emit tuneOffered();
}

void MainWindow::startCompare() {
  compare()->setBusy(tr("Running both designs to the end…"));
  compared_ = scenario_;
  QMetaObject::invokeMethod(runs_->compare(),
                            [r = runs_->compare(), sc = scenario_] { r->run(sc); });
}

bool MainWindow::event(QEvent* e) {
  // The window paints every widget marked for update when it handles this request.
  FrameLog* log = tick_ ? tick_->frameLog() : nullptr;
  if (!log || e->type() != QEvent::UpdateRequest) return QMainWindow::event(e);
  log->paintBegan();
  const bool handled = QMainWindow::event(e);
  log->paintEnded();
  return handled;
}

void MainWindow::select(const Selection& sel) {
  const auto shown = shownSnapshot();
  views_->select(sel, shown.get());
}

}  // namespace moe::ui
