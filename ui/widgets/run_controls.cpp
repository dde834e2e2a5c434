#include "ui/widgets/run_controls.h"

#include "ui/style/chrome.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <algorithm>

#include "ui/run/frame.h"
#include "ui/run/pacing.h"
#include "ui/run/run_controller.h"
#include "ui/style/palette.h"
#include "ui/widgets/design_choices.h"

namespace moe::ui {

namespace {
QString runToolTip() {
  return QObject::tr(
      "Play (Space): emulated time moves at the chosen speed while data moves between cards, "
      "and fast-forwards through stretches where it does not");
}
}  // namespace

RunControls::RunControls(QMainWindow& window, RunController* controller)
    : QObject(&window), controller_(controller) {
  buildRunBar(window);
  // Speed and design open the second row, next to the status: on the first row presenter
  // mode's larger font pushed the design choice into the toolbar's overflow menu.
  window.addToolBarBreak();
  buildSettingsBar(window);
  buildStatus(window);
}

void RunControls::buildRunBar(QMainWindow& window) {
  auto* bar = window.addToolBar(tr("Run"));
  bar->setObjectName("run-controls");
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);  // icons for the eye, words to learn
  QStyle* style = window.style();
  RunController* c = controller_;
  // Standard icons: the font may have no glyph for ⏸, which drew as an empty box.
  run_ = bar->addAction(style->standardIcon(QStyle::SP_MediaPlay), tr("Run"), this,
                        [c] { QMetaObject::invokeMethod(c, &RunController::play); });
  run_->setObjectName("run");
  pause_ = bar->addAction(style->standardIcon(QStyle::SP_MediaPause), tr("Pause"), this,
                          [c] { QMetaObject::invokeMethod(c, &RunController::pause); });
  auto* back = bar->addAction(style->standardIcon(QStyle::SP_MediaSeekBackward), tr("Back"), this,
                              [this] { step(false); });
  stepSize_ = new QComboBox;
  stepSize_->setObjectName("step-size");
  for (const StepSize& sz : stepSizes()) stepSize_->addItem(sz.label);
  stepSize_->setCurrentIndex(3);  // 1 us: a visible change, the size a lesson moves by
  stepSize_->setToolTip(
      tr("How far Back and Step move: a number of emulation events, an "
         "amount of emulated time, or a whole stage"));
  bar->addWidget(stepSize_);
  auto* fwd = bar->addAction(style->standardIcon(QStyle::SP_MediaSeekForward), tr("Step"), this,
                             [this] { step(true); });
  auto* stepS =
      bar->addAction(style->standardIcon(QStyle::SP_MediaSkipForward), tr("Next stage"), this,
                     [c] { QMetaObject::invokeMethod(c, &RunController::stepStage); });
  auto* skip =
      bar->addAction(style->standardIcon(QStyle::SP_ArrowForward), tr("Skip ahead"), this,
                     [c] { QMetaObject::invokeMethod(c, &RunController::skipToNextChange); });
  skip->setObjectName("skip-ahead");
  auto* end = bar->addAction(tr("Run to end"), this,
                             [c] { QMetaObject::invokeMethod(c, &RunController::runToEnd); });
  auto* reset = bar->addAction(tr("Reset"), this, [this, c] {
    emit resetRequested();
    QMetaObject::invokeMethod(c, &RunController::reset);
  });
  tune_ = bar->addAction(tr("Tune"), this, [this] { emit tuneRequested(); });
  tune_->setObjectName("tune");
  tune_->setToolTip(
      tr("Search the streaming design's tiling (chunk, queue, cores per role, RDMA batch, partial "
         "dtype, UB window) on the engine, in the background, then load the fastest found "
         "(same as moe-sim tune)"));
  addKeys(window, back, fwd, stepS, skip, end, reset);
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
}

void RunControls::addKeys(QMainWindow& window, QAction* back, QAction* fwd, QAction* stepStage,
                          QAction* skip, QAction* end, QAction* reset) {
  // Keys work wherever focus is, except inside a text field (which keeps space and arrows).
  auto* playPause = new QAction(tr("Play/Pause"), &window);
  playPause->setShortcut(Qt::Key_Space);
  connect(playPause, &QAction::triggered, this, [this] {
    if (pause_->isEnabled())
      pause_->trigger();
    else if (run_->isEnabled())
      run_->trigger();
  });
  window.addAction(playPause);
  back->setShortcut(Qt::Key_Left);
  fwd->setShortcut(Qt::Key_Right);
  stepStage->setShortcut(QKeySequence("Shift+Right"));
  auto* stageBack = new QAction(tr("Back to stage start"), &window);
  stageBack->setShortcut(QKeySequence("Shift+Left"));
  connect(stageBack, &QAction::triggered, this,
          [c = controller_] { QMetaObject::invokeMethod(c, &RunController::stepBackStage); });
  window.addAction(stageBack);
  skip->setShortcut(QKeySequence("Ctrl+Right"));
  end->setShortcut(Qt::Key_End);
  reset->setShortcut(Qt::Key_Home);
}

void RunControls::buildSettingsBar(QMainWindow& window) {
  auto* bar = window.addToolBar(tr("Speed and design"));
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
          [this] { emit designChanged(); });
  bar->addWidget(new QLabel(tr(" Design ")));
  bar->addWidget(impl_);
}

void RunControls::buildStatus(QMainWindow& window) {
  auto* bar = window.addToolBar(tr("Status"));
  bar->setObjectName("run-status");
  timeLabel_ = new QLabel;
  timeLabel_->setObjectName("time");
  stageLabel_ = new QLabel;
  verifyLabel_ = new QLabel;
  timeLabel_->setToolTip(tr("Emulated time"));
  stageLabel_->setToolTip(tr("The pipeline stage running now"));
  timeLabel_->setMinimumWidth(150);
  stageLabel_->setMinimumWidth(200);
  // A space's margin each side: "(scrubbed)" and "stage:" ran together.
  for (QLabel* l : {timeLabel_, stageLabel_, verifyLabel_})
    l->setMargin(window.fontMetrics().horizontalAdvance(' '));
  bar->addWidget(timeLabel_);
  bar->addWidget(stageLabel_);
  // The verdict sits in the status bar: on the toolbar row it squeezed the stage at 1920x1080.
  window.statusBar()->addWidget(verifyLabel_);
  liveButton_ = new QPushButton;
  liveButton_->setToolTip(
      tr("The cluster and card views show the scrubbed time; click to follow the live run again"));
  liveButton_->hide();
  connect(liveButton_, &QPushButton::clicked, this, [this] { emit liveRequested(); });
  window.statusBar()->addPermanentWidget(liveButton_);
}

const std::vector<RunControls::StepSize>& RunControls::stepSizes() {
  static const std::vector<StepSize> sizes = {
      {QObject::tr("1 event"), 1, 0, false},      {QObject::tr("10 events"), 10, 0, false},
      {QObject::tr("100 events"), 100, 0, false}, {QObject::tr("1 µs"), 0, kUs, false},
      {QObject::tr("10 µs"), 0, 10 * kUs, false}, {QObject::tr("100 µs"), 0, 100 * kUs, false},
      {QObject::tr("stage"), 0, 0, true}};
  return sizes;
}

void RunControls::step(bool forward) {
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

void RunControls::setPlaybackSpeed(double ps) {
  int i = speed_->findData(ps);
  if (i < 0) {
    speed_->addItem(tr("%1 us / s").arg(ps / 1e6), ps);
    i = speed_->count() - 1;
  }
  speed_->setCurrentIndex(i);  // its signal hands the speed to the controller
  QMetaObject::invokeMethod(controller_, [c = controller_, ps] { c->setSpeed(ps); });
}

void RunControls::setDesignChoices(WorkloadKind kind) {
  designsFor_ = kind;
  fillDesignChoices(impl_, kind);
}

Design RunControls::design() const {
  return static_cast<Design>(impl_->currentData().toInt());
}

void RunControls::showDesign(Design design) {
  QSignalBlocker block(impl_);
  impl_->setCurrentIndex(std::max(0, impl_->findData(static_cast<int>(design))));
}

void RunControls::showMoment(const Snapshot& shown, bool scrubbed) {
  timeLabel_->setText(tr("t = %1%2").arg(timeText(shown.now), scrubbed ? tr(" (scrubbed)") : ""));
  stageLabel_->setText(
      tr("stage: %1%2")
          .arg(QString::fromStdString(shown.stage), shown.deadlocked ? tr(" (DEADLOCK)") : ""));
}

void RunControls::showVerification(const Verification& v) {
  verifyLabel_->setText(v.summary);
  verifyLabel_->setToolTip(
      v.details.isEmpty() ? tr("Verification runs when the emulation reaches its end") : v.details);
  verifyLabel_->setStyleSheet(!v.done ? QString()
                              : v.ok  ? textStyle(okText()) + "font-weight:bold"
                                      : textStyle(errorText()) + "font-weight:bold");
}

void RunControls::setPlaying(bool playing) {
  playing_ = playing;
  run_->setEnabled(!playing && scenarioValid_);
  pause_->setEnabled(playing);
}

void RunControls::setScenarioValid(bool ok, const QString& why) {
  scenarioValid_ = ok;
  run_->setEnabled(ok && !pause_->isEnabled());
  run_->setToolTip(ok ? runToolTip()
                      : tr("Disabled: the edited scenario is invalid (%1)").arg(why));
}

void RunControls::showScrubbed(Time t) {
  liveButton_->setText(tr("Showing %1 (scrubbed) — back to live").arg(timeText(t)));
  liveButton_->show();
}

void RunControls::hideLive() {
  liveButton_->hide();
}

}  // namespace moe::ui
