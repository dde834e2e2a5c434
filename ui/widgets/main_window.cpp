#include "ui/widgets/main_window.h"

#include <algorithm>
#include <optional>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "core/run/design_registry.h"
#include "core/run/expert_balance.h"
#include "core/scenario/scenario_json.h"
#include "ui/run/pacing.h"
#include "ui/run/run_controller.h"
#include "ui/style/palette.h"
#include "ui/style/presenter.h"
#include "ui/widgets/ab_compare_view.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/cluster_widget.h"
#include "ui/widgets/compare_view.h"
#include "ui/widgets/core_grid_widget.h"
#include "ui/widgets/design_choices.h"
#include "ui/widgets/experts_view.h"
#include "ui/widgets/frame_log.h"
#include "ui/widgets/lesson_panel.h"
#include "ui/widgets/metrics_view.h"
#include "ui/widgets/ring_strip_widget.h"
#include "ui/widgets/scenario_editor.h"
#include "ui/widgets/sweep_view.h"
#include "ui/widgets/timeline_widget.h"
#include "ui/widgets/tune_diff_dialog.h"
#include "ui/widgets/view_help.h"
#include "ui/widgets/workspace_stages_widget.h"

namespace moe::ui {

namespace {
constexpr int kFrameMs = 16;  // the coalescing redraw timer: at most ~60 redraws a second

QString runToolTip() {
  return QObject::tr(
      "Play (Space): emulated time moves at the chosen speed while data moves between cards, "
      "and fast-forwards through stretches where it does not");
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  registerMetaTypes();
  qRegisterMetaType<moe::ui::CompareResult>();
  setWindowTitle(tr("MoE Pipeline Workbench"));
  controller_ = new RunController;
  controller_->moveToThread(&worker_);
  connect(&worker_, &QThread::finished, controller_, &QObject::deleteLater);
  worker_.start();
  compareRunner_ = new CompareRunner;
  compareRunner_->moveToThread(&compareThread_);
  connect(&compareThread_, &QThread::finished, compareRunner_, &QObject::deleteLater);
  compareThread_.start();
  tuneRunner_ = new TuneRunner;
  tuneRunner_->moveToThread(&tuneThread_);
  connect(&tuneThread_, &QThread::finished, tuneRunner_, &QObject::deleteLater);
  tuneThread_.start();
  qRegisterMetaType<std::shared_ptr<const moe::SweepSpec>>();
  qRegisterMetaType<std::shared_ptr<const moe::ui::SweepResult>>();
  sweepRunner_ = new SweepRunner;
  sweepRunner_->moveToThread(&sweepThread_);
  connect(&sweepThread_, &QThread::finished, sweepRunner_, &QObject::deleteLater);
  sweepThread_.start();
  qRegisterMetaType<moe::ui::AbSide>();
  abRunner_ = new AbRunner;
  abRunner_->moveToThread(&abThread_);
  connect(&abThread_, &QThread::finished, abRunner_, &QObject::deleteLater);
  abThread_.start();

  tabs_ = new QTabWidget;
  cluster_ = new ClusterWidget;
  card_ = new CardView;
  experts_ = new ExpertsView;
  timeline_ = new TimelineWidget;
  metrics_ = new MetricsView;
  editor_ = new ScenarioEditor;
  compare_ = new CompareView;
  sweep_ = new SweepView(sweepRunner_);
  ab_ = new AbCompareView;
  tabs_->addTab(cluster_, tr("Cluster"));
  tabs_->addTab(card_, tr("Card"));
  tabs_->addTab(experts_, tr("Experts"));
  // The timeline tab: a lane choice above the Gantt.
  auto* timelineTab = new QWidget;
  auto* timelineHead = new QHBoxLayout;
  lanes_ = new QComboBox;
  lanes_->addItem(tr("one lane per core"), static_cast<int>(TimelineWidget::Grouping::PerCore));
  lanes_->addItem(tr("per card, one lane per role"),
                  static_cast<int>(TimelineWidget::Grouping::ByRole));
  lanes_->setToolTip(
      tr("Per core: every core's activities. Per role: the share of each role's cores working on "
         "each card, which shows a2a, gemm and reduce-scatter overlapping in the fused operator"));
  connect(lanes_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    timeline_->setGrouping(static_cast<TimelineWidget::Grouping>(lanes_->itemData(i).toInt()));
  });
  timelineHead->addWidget(new QLabel(tr("Lanes:")));
  timelineHead->addWidget(lanes_);
  timelineHead->addStretch(1);
  auto* timelineLay = new QVBoxLayout(timelineTab);
  timelineLay->setContentsMargins(0, 4, 0, 0);
  timelineLay->addLayout(timelineHead);
  timelineLay->addWidget(timeline_, 1);
  auto* legend = new TimelineLegend;
  legend->setObjectName("timelineLegend");
  timelineLay->addWidget(legend);
  // Lanes are laid out while painting: update the key afterwards, not inside the paint.
  connect(
      timeline_, &TimelineWidget::lanesRebuilt, legend,
      [this, legend] { legend->setContent(timeline_->legendContent()); }, Qt::QueuedConnection);
  tabs_->addTab(timelineTab, tr("Timeline"));
  tabs_->addTab(metrics_, tr("Metrics"));
  tabs_->addTab(editor_, tr("Scenario"));
  tabs_->addTab(compare_, tr("Compare"));
  tabs_->addTab(ab_, tr("A/B"));
  tabs_->addTab(sweep_, tr("Sweep"));
  connect(ab_, &AbCompareView::runRequested, this, &MainWindow::startAb);
  connect(abRunner_, &AbRunner::finished, this, [this](int side, const AbSide& r) {
    ab_->setResult(side, r);
    emit abDone(side);
  });
  // A clicked sweep point becomes the scenario of the editor and the live run.
  connect(sweep_, &SweepView::loadRequested, this,
          [this](const Scenario& sc) { loadScenario(sc); });
  setCentralWidget(tabs_);

  inspector_ = new QTextBrowser;
  inspector_->setToolTip(tr("What the selected element is doing now, in words"));
  inspectorDock_ = new QDockWidget(tr("Inspector"));
  inspectorDock_->setWidget(inspector_);
  inspectorDock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::RightDockWidgetArea, inspectorDock_);
  resizeDocks({inspectorDock_}, {340}, Qt::Horizontal);

  lessons_ = new LessonPanel(builtinLessons());
  lessonDock_ = new QDockWidget(tr("Lesson"));
  lessonDock_->setObjectName("lesson");
  lessonDock_->setWidget(lessons_);
  lessonDock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                           QDockWidget::DockWidgetClosable);
  // Beside the views, above the Inspector: under them it took a projector's rows from the
  // views and shrank the Card view's cores to unreadable.
  addDockWidget(Qt::RightDockWidgetArea, lessonDock_);
  splitDockWidget(lessonDock_, inspectorDock_, Qt::Vertical);
  lessonDock_->hide();  // the views get the room until a lesson is chosen (View or Help menu)
  connect(lessons_, &LessonPanel::stepRequested, this, &MainWindow::showLessonStep);

  buildControls();
  buildMenus();

  frameTimer_ = new QTimer(this);
  frameTimer_->setInterval(kFrameMs);
  connect(frameTimer_, &QTimer::timeout, this, [this] {
    if (!frameLog_) return redraw();
    QElapsedTimer took;
    took.start();
    redraw();
    if (!live_) return;
    const auto shown = shownSnapshot();
    frameLog_->tick(static_cast<double>(took.nsecsElapsed()) / 1e6, shown->now, shown->stage,
                    playing_);
    if (live_->finished || live_->deadlocked) frameLog_->runEnded();
  });
  frameTimer_->start();

  connect(controller_, &RunController::frameReady, this, &MainWindow::onFrame);
  connect(controller_, &RunController::expertLoadReady, experts_, &ExpertsView::setLoad);
  connect(experts_, &ExpertsView::rebalanceRequested, this, &MainWindow::rebalance);
  connect(controller_, &RunController::verificationReady, this, [this](const Verification& v) {
    verification_ = v;
    if (frameLog_ && v.done) frameLog_->verdictIn();
    verifyLabel_->setText(v.summary);
    verifyLabel_->setToolTip(v.details.isEmpty()
                                 ? tr("Verification runs when the emulation reaches its end")
                                 : v.details);
    verifyLabel_->setStyleSheet(!v.done ? ""
                                : v.ok  ? "color:#208040;font-weight:bold"
                                        : "color:#c02020;font-weight:bold");
  });
  connect(controller_, &RunController::modeChanged, this, [this](int m) {
    const bool playing = m != static_cast<int>(RunController::Mode::Paused);
    playing_ = playing;
    run_->setEnabled(!playing && scenarioValid_);
    pause_->setEnabled(playing);
  });
  connect(controller_, &RunController::targetReached, this, [this] {
    dirty_ = true;
    redraw();
    measureLessonStep();
    emit lessonStepShown();
  });
  connect(controller_, &RunController::failed, this,
          [this](const QString& m) { statusBar()->showMessage(m); });
  connect(controller_, &RunController::exported, this,
          [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  connect(controller_, &RunController::scrubReady, this, [this](const Snapshot& s) {
    scrub_ = std::make_shared<const Snapshot>(s);
    liveButton_->setText(tr("Showing %1 (scrubbed) — back to live").arg(timeText(s.now)));
    liveButton_->show();
    dirty_ = true;
    redraw();
    emit scrubShown();
  });
  connect(compareRunner_, &CompareRunner::finished, this, [this](const CompareResult& r) {
    compare_->setResult(r);
    // The scenario may have changed while the comparison ran.
    compare_->setStale(!(compared_ == scenario_));
    emit compareDone();
  });
  connect(compareRunner_, &CompareRunner::failed, this,
          [this](const QString& m) { compare_->setBusy(m); });
  connect(compare_, &CompareView::runRequested, this, &MainWindow::startCompare);
  connect(tuneRunner_, &TuneRunner::progress, this, [this](int done, int total) {
    statusBar()->showMessage(tr("Tuning the streaming tiling: %1 of %2 runs").arg(done).arg(total));
  });
  connect(tuneRunner_, &TuneRunner::finished, this,
          [this](const Scenario& tuned, const QString& summary) { offerTuned(tuned, summary); });
  connect(tuneRunner_, &TuneRunner::failed, this, [this](const QString& m) {
    tune_->setEnabled(true);
    statusBar()->showMessage(m, 12000);
    emit tuneDone();
  });

  connect(cluster_, &ClusterWidget::selected, this, &MainWindow::select);
  connect(cluster_, &ClusterWidget::cardClicked, this, [this](int c) {
    card_->showCard(c);
    tabs_->setCurrentWidget(card_);
  });
  connect(card_, &CardView::selected, this, &MainWindow::select);
  connect(timeline_, &TimelineWidget::scrubbed, this,
          [this](Time t) { controller_->requestScrub(t); });
  connect(editor_, &ScenarioEditor::validityChanged, this, [this](bool ok, const QString& msg) {
    scenarioValid_ = ok;
    run_->setEnabled(ok && !pause_->isEnabled());
    run_->setToolTip(ok ? runToolTip()
                        : tr("Disabled: the edited scenario is invalid (%1)").arg(msg));
  });
  connect(editor_, &ScenarioEditor::applyRequested, this,
          [this](const Scenario& sc) { loadScenario(sc); });

  resize(1400, 900);
  loadScenario(defaultScenario());
}

MainWindow::~MainWindow() {
  // The controller may be inside a slice: ask the worker loop to stop and wait for it.
  worker_.quit();
  worker_.wait();
  compareThread_.quit();
  compareThread_.wait();
  tuneRunner_->cancel();  // a search stops after its running candidates
  tuneThread_.quit();
  tuneThread_.wait();
  // A sweep under way stops after its running points.
  sweepRunner_->cancel();
  sweepThread_.quit();
  sweepThread_.wait();
  abThread_.quit();
  abThread_.wait();
}

void MainWindow::buildControls() {
  auto* bar = addToolBar(tr("Run"));
  bar->setObjectName("run-controls");
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);  // icons for the eye, words to learn
  // Standard icons: the font may have no glyph for ⏸, which drew as an empty box.
  run_ = bar->addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run"), this,
                        [this] { QMetaObject::invokeMethod(controller_, &RunController::play); });
  pause_ = bar->addAction(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause"), this, [this] {
    QMetaObject::invokeMethod(controller_, &RunController::pause);
  });
  auto* back = bar->addAction(style()->standardIcon(QStyle::SP_MediaSeekBackward), tr("Back"), this,
                              [this] { step(false); });
  stepSize_ = new QComboBox;
  for (const StepSize& sz : stepSizes()) stepSize_->addItem(sz.label);
  stepSize_->setCurrentIndex(3);  // 1 us: a visible change, the size a lesson moves by
  stepSize_->setToolTip(
      tr("How far Back and Step move: a number of emulation events, an "
         "amount of emulated time, or a whole stage"));
  bar->addWidget(stepSize_);
  auto* fwd = bar->addAction(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Step"), this,
                             [this] { step(true); });
  auto* stepS =
      bar->addAction(style()->standardIcon(QStyle::SP_MediaSkipForward), tr("Next stage"), this,
                     [this] { QMetaObject::invokeMethod(controller_, &RunController::stepStage); });
  auto* skip = bar->addAction(
      style()->standardIcon(QStyle::SP_ArrowForward), tr("Skip ahead"), this,
      [this] { QMetaObject::invokeMethod(controller_, &RunController::skipToNextChange); });
  skip->setObjectName("skip-ahead");
  auto* end = bar->addAction(tr("Run to end"), this, [this] {
    QMetaObject::invokeMethod(controller_, &RunController::runToEnd);
  });
  auto* reset = bar->addAction(tr("Reset"), this, [this] {
    timeline_->clear();
    metrics_->clear();
    QMetaObject::invokeMethod(controller_, &RunController::reset);
  });
  tune_ = bar->addAction(tr("Tune"), this, [this] { startTune(); });
  tune_->setToolTip(
      tr("Search the streaming design's tiling (chunk, queue, cores per role, RDMA batch, partial "
         "dtype, UB window) on the engine, in the background, then load the fastest found "
         "(same as moe-sim tune)"));
  // Keys work wherever focus is, except inside a text field (which keeps space and arrows).
  auto* playPause = new QAction(tr("Play/Pause"), this);
  playPause->setShortcut(Qt::Key_Space);
  connect(playPause, &QAction::triggered, this, [this] {
    if (pause_->isEnabled())
      pause_->trigger();
    else if (run_->isEnabled())
      run_->trigger();
  });
  addAction(playPause);
  back->setShortcut(Qt::Key_Left);
  fwd->setShortcut(Qt::Key_Right);
  stepS->setShortcut(QKeySequence("Shift+Right"));
  auto* stageBack = new QAction(tr("Back to stage start"), this);
  stageBack->setShortcut(QKeySequence("Shift+Left"));
  connect(stageBack, &QAction::triggered, this,
          [this] { QMetaObject::invokeMethod(controller_, &RunController::stepBackStage); });
  addAction(stageBack);
  skip->setShortcut(QKeySequence("Ctrl+Right"));
  end->setShortcut(Qt::Key_End);
  reset->setShortcut(Qt::Key_Home);
  run_->setToolTip(runToolTip());
  pause_->setToolTip(tr("Pause playback (Space)"));
  pause_->setEnabled(false);
  back->setToolTip(
      tr("Step back by the chosen amount (Left). Re-runs the same scenario to the "
         "earlier time, so the state is exactly what it was"));
  fwd->setToolTip(tr("Step forward by the chosen amount (Right)"));
  skip->setToolTip(
      tr("Skip to the next interesting moment (Ctrl+Right): the next stage, or the next time "
         "data starts or stops moving between cards. Playing goes on from there"));
  stepS->setToolTip(
      tr("Run until the current stage ends (Shift+Right); Shift+Left goes back to its start"));
  end->setToolTip(
      tr("Run as fast as possible to the end, then verify against the golden reference (End)"));
  reset->setToolTip(tr("Back to time 0 with the same scenario (Home)"));
  // Speed and design open the second row, next to the status: on the first row presenter
  // mode's larger font pushed the design choice into the toolbar's overflow menu.
  addToolBarBreak();
  bar = addToolBar(tr("Speed and design"));
  bar->setObjectName("run-settings");
  speed_ = new QComboBox;
  const std::pair<const char*, double> speeds[] = {
      {"100 ns / s", 1e5}, {"1 us / s", 1e6},   {"2 us / s", 2e6}, {"8 us / s", 8e6},
      {"10 us / s", 1e7},  {"100 us / s", 1e8}, {"1 ms / s", 1e9}, {"10 ms / s", 1e10}};
  for (const auto& [name, ps] : speeds) speed_->addItem(tr(name), ps);
  speed_->setCurrentIndex(std::max(0, speed_->findData(kDefaultPlaySpeed)));
  speed_->setToolTip(
      tr("Emulated time per wall-clock second while data moves between cards. Where it does "
         "not (the experts stage), playback fast-forwards, doubling its speed every second"));
  connect(speed_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    const double ps = speed_->itemData(i).toDouble();
    QMetaObject::invokeMethod(controller_, [c = controller_, ps] { c->setSpeed(ps); });
  });
  bar->addWidget(new QLabel(tr(" Speed ")));
  bar->addWidget(speed_);
  impl_ = new QComboBox;
  impl_->setObjectName("design");
  impl_->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // "pipelined (fused)" whole
  setDesignChoices(WorkloadKind::MoeLayer);
  connect(impl_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this] { loadScenario(scenario_); });
  bar->addWidget(new QLabel(tr(" Design ")));
  bar->addWidget(impl_);
  bar = addToolBar(tr("Status"));
  bar->setObjectName("run-status");
  timeLabel_ = new QLabel;
  stageLabel_ = new QLabel;
  verifyLabel_ = new QLabel;
  timeLabel_->setToolTip(tr("Emulated time"));
  stageLabel_->setToolTip(tr("The pipeline stage running now"));
  timeLabel_->setMinimumWidth(150);
  stageLabel_->setMinimumWidth(200);
  // A space's margin each side: "(scrubbed)" and "stage:" ran together.
  for (QLabel* l : {timeLabel_, stageLabel_, verifyLabel_})
    l->setMargin(fontMetrics().horizontalAdvance(' '));
  bar->addWidget(timeLabel_);
  bar->addWidget(stageLabel_);
  // The verdict sits in the status bar: on the toolbar row it squeezed the stage at 1920x1080.
  statusBar()->addWidget(verifyLabel_);
  liveButton_ = new QPushButton;
  liveButton_->setToolTip(
      tr("The cluster and card views show the scrubbed time; click to follow the live run again"));
  liveButton_->hide();
  connect(liveButton_, &QPushButton::clicked, this, &MainWindow::showLive);
  statusBar()->addPermanentWidget(liveButton_);
}

const std::vector<MainWindow::StepSize>& MainWindow::stepSizes() {
  static const std::vector<StepSize> sizes = {
      {QObject::tr("1 event"), 1, 0, false},      {QObject::tr("10 events"), 10, 0, false},
      {QObject::tr("100 events"), 100, 0, false}, {QObject::tr("1 µs"), 0, kUs, false},
      {QObject::tr("10 µs"), 0, 10 * kUs, false}, {QObject::tr("100 µs"), 0, 100 * kUs, false},
      {QObject::tr("stage"), 0, 0, true}};
  return sizes;
}

void MainWindow::step(bool forward) {
  const StepSize sz = stepSizes()[static_cast<std::size_t>(std::max(0, stepSize_->currentIndex()))];
  RunController* c = controller_;
  if (sz.stage)
    QMetaObject::invokeMethod(c,
                              forward ? &RunController::stepStage : &RunController::stepBackStage);
  else if (sz.events > 0)
    QMetaObject::invokeMethod(
        c, [c, forward, n = sz.events] { forward ? c->stepEvents(n) : c->stepBackEvents(n); });
  else
    QMetaObject::invokeMethod(
        c, [c, forward, dt = sz.time] { forward ? c->stepTime(dt) : c->stepBackTime(dt); });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("Export view as PNG…"), this, &MainWindow::exportPng);
  file->addAction(tr("Export Chrome trace…"), this, [this] {
    const QString f =
        QFileDialog::getSaveFileName(this, tr("Chrome trace"), "trace.json", tr("JSON (*.json)"));
    if (!f.isEmpty())
      QMetaObject::invokeMethod(controller_, [c = controller_, f] { c->exportTrace(f); });
  });
  file->addAction(tr("Export stage CSV…"), this, [this] {
    const QString f =
        QFileDialog::getSaveFileName(this, tr("Stage CSV"), "stages.csv", tr("CSV (*.csv)"));
    if (!f.isEmpty())
      QMetaObject::invokeMethod(controller_, [c = controller_, f] { c->exportCsv(f); });
  });
  file->addSeparator();
  file->addAction(tr("Quit"), this, &QWidget::close);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  presenterAction_ = view->addAction(tr("Presenter mode (high contrast)"), this,
                                     [this](bool on) { setPresenterMode(on); });
  presenterAction_->setCheckable(true);
  QAction* lessonsAction = lessonDock_->toggleViewAction();
  lessonsAction->setText(tr("Lesson panel"));
  lessonsAction->setToolTip(tr("Guided lessons, step by step with Back and Next"));
  view->addAction(lessonsAction);
  presenterAction_->setToolTip(
      tr("High-contrast palette for a projector. Start with --presenter (and --scale 1.25 to 2) "
         "to also make text, lines and cells larger"));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  auto* what = help->addAction(tr("What am I looking at?"), this, [this] {
    QMessageBox box(this);
    box.setWindowTitle(tr("What am I looking at?"));
    box.setTextFormat(Qt::RichText);
    box.setText(viewHelp(tabs_->tabText(tabs_->currentIndex()).remove('&')));
    box.exec();
  });
  what->setShortcut(QKeySequence::HelpContents);
  what->setToolTip(tr("Explains the view that is open now (F1)"));
  help->addAction(tr("Guided lessons…"), this, [this] { lessonDock_->show(); });
  help->addAction(tr("Keyboard shortcuts"), this, [this] {
    QMessageBox::information(
        this, tr("Keyboard shortcuts"),
        tr("Space: play / pause\nRight / Left: step forward / back by the chosen amount\n"
           "Shift+Right: next stage; Shift+Left: back to the stage start\nCtrl+Right: skip to "
           "the next interesting moment\nHome: reset; End: run to the end\nF1: what am I "
           "looking at?"));
  });
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

void MainWindow::setPlaybackSpeed(double ps) {
  int i = speed_->findData(ps);
  if (i < 0) {
    speed_->addItem(tr("%1 us / s").arg(ps / 1e6), ps);
    i = speed_->count() - 1;
  }
  speed_->setCurrentIndex(i);  // its signal hands the speed to the controller
  QMetaObject::invokeMethod(controller_, [c = controller_, ps] { c->setSpeed(ps); });
}

void MainWindow::showLessonStep(const Lesson& lesson, int index) {
  if (index < 0 || index >= static_cast<int>(lesson.steps.size())) return;
  lessonDock_->show();
  const LessonStep& step = lesson.steps[static_cast<std::size_t>(index)];
  lessonStep_ = step;
  lessonChecks_.clear();
  lessonValues_.clear();
  if (step.scenario.workload.kind != designsFor_) setDesignChoices(step.scenario.workload.kind);
  if (const std::optional<Design> design = designFromName(step.design)) {
    QSignalBlocker block(impl_);
    impl_->setCurrentIndex(std::max(0, impl_->findData(static_cast<int>(*design))));
  }
  scrub_.reset();
  liveButton_->hide();
  loadScenario(step.scenario, step.fault);
  QMetaObject::invokeMethod(controller_,
                            [c = controller_, t = step.target] { c->runFromStartTo(t); });
  const auto& views = lessonViews();
  for (std::size_t i = 0; i < views.size(); ++i)
    if (views[i] == step.view) tabs_->setCurrentIndex(static_cast<int>(i));
  if (step.view == "compare") {
    compare_->showPart(comparePartFromName(step.show).value_or(ComparePart::Timelines));
    startCompare();
  }
  if (step.card >= 0) card_->showCard(step.card);
  select(step.selection);
  fitLessonDock();
}

void MainWindow::measureLessonStep() {
  if (!lessonStep_ || !live_) return;
  // Selected again at the step's moment, so the element it names (a combine ring, listed
  // only once its stage runs) is unfolded and scrolled into view in this picture.
  select(lessonStep_->selection);
  const bool layer = scenario_.workload.kind == WorkloadKind::MoeLayer;
  const LessonState state{
      *live_,
      scenario_,
      layer && !experts_->load().perExpert.empty() ? &experts_->load() : nullptr,
      lessonStep_->selection,
      lessonStep_->card,
      verification_.done && verification_.ok};
  lessonChecks_ = checkLessonStep(lessonStep_->expectStage, lessonStep_->expect, state);
  lessonValues_.clear();
  for (const LessonQuantity& q : lessonQuantities())
    lessonValues_.emplace_back(std::string(q.name), q.measure(state));
  lessons_->setFilledNarration(fillLessonNarration(lessonStep_->narration, state));
  fitLessonDock();
}

void MainWindow::fitLessonDock() {
  // The whole narration, and the Inspector below it the rest. Split half and half, a long
  // step's last lines were cut off at 1920x1080 while the Inspector stood half empty.
  if (!lessonDock_->isVisible() || inspectorDock_->isFloating()) return;
  const int total = lessonDock_->height() + inspectorDock_->height();
  // The panel's needs plus the dock's own title bar and frame (the dock's minimum size hint
  // left the narration's last line 16 px short).
  const int need =
      lessons_->minimumSizeHint().height() + lessonDock_->height() - lessons_->height();
  resizeDocks({lessonDock_, inspectorDock_}, {need, std::max(1, total - need)}, Qt::Vertical);
}

void MainWindow::exportPng() {
  const QString f =
      QFileDialog::getSaveFileName(this, tr("Export view"), "view.png", tr("PNG (*.png)"));
  if (!f.isEmpty())
    statusBar()->showMessage(tabs_->currentWidget()->grab().save(f) ? tr("wrote %1").arg(f)
                                                                    : tr("cannot write %1").arg(f),
                             8000);
}

void MainWindow::setDesignChoices(WorkloadKind kind) {
  designsFor_ = kind;
  fillDesignChoices(impl_, kind);
}

void MainWindow::loadScenario(const Scenario& sc, Fault fault) {
  const bool workloadChanged = sc.workload.kind != designsFor_ || !live_;
  if (sc.workload.kind != designsFor_) setDesignChoices(sc.workload.kind);
  if (workloadChanged) {
    // The fused operator reads best by role (its overlap); the MoE layer core by core.
    lanes_->setCurrentIndex(sc.workload.kind == WorkloadKind::AlltoallMatmulRs ? 1 : 0);
    compare_->setWorkload(sc.workload.kind);
    experts_->setNotApplicable(
        sc.workload.kind == WorkloadKind::AlltoallMatmulRs
            ? tr("Not applicable: the AlltoAll-Matmul-ReduceScatter workload has no experts "
                 "and no routing. Its cores, workspace stages and overlap are in the Card "
                 "and Timeline views.")
            : QString());
  }
  scenario_ = sc;
  sweep_->setScenario(sc);
  compare_->setStale(!(sc == compared_));
  scrub_.reset();
  liveButton_->hide();
  timeline_->clear();
  metrics_->clear();
  if (!(editor_->scenario() == sc)) editor_->setScenario(sc);
  const auto design = static_cast<Design>(impl_->currentData().toInt());
  ab_->setCurrent(sc, design);
  QMetaObject::invokeMethod(controller_,
                            [c = controller_, sc, design, fault] { c->load(sc, design, fault); });
}

void MainWindow::startAb(int side) {
  ab_->setBusy(side);
  const int design = impl_->currentData().toInt();
  QMetaObject::invokeMethod(
      abRunner_, [r = abRunner_, sc = scenario_, design, side] { r->run(sc, design, side); });
}

void MainWindow::rebalance(const std::vector<double>& perExpertLoad, int redundantExperts) {
  try {
    const Scenario next = rebalancedScenario(scenario_, perExpertLoad, redundantExperts);
    experts_->beginRebalance();
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
  tune_->setEnabled(false);
  statusBar()->showMessage(tr("Tuning the streaming tiling…"));
  QMetaObject::invokeMethod(tuneRunner_,
                            [r = tuneRunner_, sc = scenario_, budget] { r->run(sc, budget); });
}

void MainWindow::offerTuned(const Scenario& tuned, const QString& summary) {
  tune_->setEnabled(true);
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
  compare_->setBusy(tr("Running both designs to the end…"));
  compared_ = scenario_;
  QMetaObject::invokeMethod(compareRunner_, [r = compareRunner_, sc = scenario_] { r->run(sc); });
}

void MainWindow::onFrame(const Frame& f) {
  if (f.restart) {
    timeline_->clear();
    metrics_->clear();
  }
  live_ = std::make_shared<const Snapshot>(f.snapshot);
  timeline_->append(f.newIntervals);
  metrics_->append(f.newSamples);
  dirty_ = true;
}

void MainWindow::redraw() {
  if (!dirty_ || !live_) return;
  dirty_ = false;
  // One displayed time, live or scrubbed, drives the toolbar, every view, the timeline
  // cursor and the inspector.
  const auto shown = shownSnapshot();
  timeLabel_->setText(tr("t = %1%2").arg(timeText(shown->now), scrub_ ? tr(" (scrubbed)") : ""));
  stageLabel_->setText(
      tr("stage: %1%2")
          .arg(QString::fromStdString(shown->stage), shown->deadlocked ? tr(" (DEADLOCK)") : ""));
  cluster_->setSnapshot(shown);
  card_->setSnapshot(shown);
  timeline_->setSnapshot(live_);
  timeline_->setScrubTime(shown->now);
  metrics_->refresh();
  inspector_->setHtml(describeSelection(*shown, selection_));
  emit frameShown();
}

bool MainWindow::setFrameLog(const QString& path) {
  auto log = std::make_unique<FrameLog>();
  if (!log->open(path)) return false;
  frameLog_ = std::move(log);
  return true;
}

bool MainWindow::event(QEvent* e) {
  // The window paints every widget marked for update when it handles this request.
  if (!frameLog_ || e->type() != QEvent::UpdateRequest) return QMainWindow::event(e);
  frameLog_->paintBegan();
  const bool handled = QMainWindow::event(e);
  frameLog_->paintEnded();
  return handled;
}

void MainWindow::select(const Selection& sel) {
  selection_ = sel;
  if (sel.kind == Selection::Kind::Card) card_->showCard(sel.id);
  // One highlight at a time: a core selected after a ring no longer marks the ring.
  card_->grid()->setSelectedCore(sel.kind == Selection::Kind::Core ? sel.id : -1);
  cluster_->setSelectedLink(sel.kind == Selection::Kind::Link ? sel.id : -1);
  card_->rings()->setSelectedRing(sel.kind == Selection::Kind::Ring ? sel.id : -1);
  card_->stages()->setSelectedStrip(sel.kind == Selection::Kind::Stages ? sel.id : -1);
  if (auto s = shownSnapshot()) inspector_->setHtml(describeSelection(*s, selection_));
}

void MainWindow::showLive() {
  scrub_.reset();
  liveButton_->hide();
  dirty_ = true;
}

}  // namespace moe::ui
