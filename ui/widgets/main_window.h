#pragma once
// The workbench window: run controls and status on top, one tab per view, the inspector on
// the side. It owns the worker threads; views are fed from the latest Frame on a
// coalescing timer (at most 60 redraws a second), never from the emulation itself.

#include <QMainWindow>
#include <QThread>
#include <memory>
#include <optional>
#include <vector>

#include "core/runtime/layer_context.h"
#include "ui/models/lesson.h"
#include "ui/models/selection.h"
#include "ui/run/ab_runner.h"
#include "ui/run/compare_runner.h"
#include "ui/run/frame.h"
#include "ui/run/sweep_runner.h"
#include "ui/run/tune_runner.h"

class QAction;
class QComboBox;
class QLabel;
class QTabWidget;
class QTextBrowser;
class QTimer;
class QPushButton;

namespace moe::ui {

class RunController;
class ClusterWidget;
class CardView;
class ExpertsView;
class TimelineWidget;
class MetricsView;
class ScenarioEditor;
class CompareView;
class SweepView;
class AbCompareView;
class LessonPanel;
class FrameLog;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads a scenario into the live run (and the editor), paused at time 0.
  void loadScenario(const Scenario& sc, Fault fault = Fault::None);
  RunController* controller() const { return controller_; }
  std::shared_ptr<const Snapshot> liveSnapshot() const { return live_; }
  std::shared_ptr<const Snapshot> shownSnapshot() const { return scrub_ ? scrub_ : live_; }
  const Verification& verification() const { return verification_; }
  QTabWidget* tabs() const { return tabs_; }
  ClusterWidget* clusterView() const { return cluster_; }
  CardView* cardView() const { return card_; }
  ExpertsView* expertsView() const { return experts_; }
  TimelineWidget* timeline() const { return timeline_; }
  MetricsView* metrics() const { return metrics_; }
  ScenarioEditor* editor() const { return editor_; }
  CompareView* compare() const { return compare_; }
  SweepView* sweep() const { return sweep_; }
  AbCompareView* abCompare() const { return ab_; }
  // Runs the current scenario and design to the end as A/B side 0 (pin A) or 1 (B).
  void startAb(int side);
  QAction* runAction() const { return run_; }
  QComboBox* designCombo() const { return impl_; }
  QComboBox* laneCombo() const { return lanes_; }
  QLabel* timeLabel() const { return timeLabel_; }
  const Scenario& scenario() const { return scenario_; }
  QComboBox* stepSizeCombo() const { return stepSize_; }
  // Steps by the amount chosen in the step-size combo, forward or back.
  void step(bool forward);
  void startCompare();
  // Tunes the streaming design's tiling of the current scenario in the tune thread (the
  // same search as `moe-sim tune`), then shows what it would change (TuneDiffDialog) and
  // loads the result only if the user applies it.
  void startTune(int budget = 48);
  QAction* tuneAction() const { return tune_; }
  // Sets the playback speed (emulated ps per wall second) and shows it in the speed box.
  void setPlaybackSpeed(double psPerWallSecond);
  // Presenter mode: the high-contrast palette (the scale is set at start-up, --presenter).
  void setPresenterMode(bool on);
  bool presenterMode() const { return presenter_; }
  // Does what a lesson step asks: its scenario and design, a run from time 0 to its moment,
  // its view and selection. lessonStepShown follows once the views show that moment.
  void showLessonStep(const Lesson& lesson, int step);
  LessonPanel* lessonPanel() const { return lessons_; }
  // The shown lesson step's expectations measured at its moment (stage first), once
  // lessonStepShown has been emitted; empty before.
  const std::vector<LessonCheck>& lessonChecks() const { return lessonChecks_; }
  // Every lesson quantity at that moment, for lesson authors (steps.json).
  const std::vector<std::pair<std::string, double>>& lessonValues() const { return lessonValues_; }
  // Regenerates the eplb table with EPLB from a per-expert load and re-runs the layer.
  void rebalance(const std::vector<double>& perExpertLoad, int redundantExperts);
  // Logs every redraw tick's timing into `path` (frame_log.h); false if it cannot be written.
  bool setFrameLog(const QString& path);
  const FrameLog* frameLog() const { return frameLog_.get(); }

 protected:
  bool event(QEvent* e) override;

 signals:
  void frameShown();  // after the views took a new live frame
  void scrubShown();  // after the views took a scrubbed snapshot
  void compareDone();
  void tuneOffered();  // the tune dialog is open, waiting for Apply or Keep current
  void tuneDone();     // after Apply, Keep current, a failure or a search that found no change
  void abDone(int side);
  void lessonStepShown();

 private:
  struct StepSize {
    QString label;
    int events;  // > 0: a number of events
    Time time;   // > 0: emulated time
    bool stage;  // a whole stage
  };
  static const std::vector<StepSize>& stepSizes();
  void buildControls();
  void buildMenus();
  void onFrame(const Frame& f);
  void redraw();
  void select(const Selection& sel);
  void showLive();
  void exportPng();
  // The design combo lists the designs of the scenario's workload.
  void setDesignChoices(WorkloadKind kind);
  // Measures the shown lesson step's expectations and fills its narration's numbers.
  void measureLessonStep();
  void fitLessonDock();
  // Asks with a TuneDiffDialog whether to load the tuned scenario.
  void offerTuned(const Scenario& tuned, const QString& summary);

  QThread worker_;
  QThread compareThread_;
  QThread tuneThread_;
  QThread sweepThread_;
  QThread abThread_;
  AbRunner* abRunner_;
  SweepRunner* sweepRunner_;
  RunController* controller_;
  CompareRunner* compareRunner_;
  TuneRunner* tuneRunner_;
  QAction* tune_ = nullptr;
  Scenario scenario_;
  Scenario compared_;  // the scenario Compare's figures are for
  std::shared_ptr<const Snapshot> live_;
  std::shared_ptr<const Snapshot> scrub_;
  Verification verification_;
  Selection selection_;
  bool dirty_ = false;
  bool presenter_ = false;
  QAction* presenterAction_ = nullptr;
  bool scenarioValid_ = true;
  QTimer* frameTimer_;
  QTabWidget* tabs_;
  ClusterWidget* cluster_;
  CardView* card_;
  ExpertsView* experts_;
  TimelineWidget* timeline_;
  MetricsView* metrics_;
  ScenarioEditor* editor_;
  CompareView* compare_;
  SweepView* sweep_;
  AbCompareView* ab_;
  QTextBrowser* inspector_;
  LessonPanel* lessons_;
  std::optional<LessonStep> lessonStep_;  // the step being shown, until the user runs freely
  std::vector<LessonCheck> lessonChecks_;
  std::vector<std::pair<std::string, double>> lessonValues_;
  class QDockWidget* lessonDock_;
  class QDockWidget* inspectorDock_;
  QAction* run_;
  QAction* pause_;
  QComboBox* impl_;
  QComboBox* lanes_;
  WorkloadKind designsFor_ = WorkloadKind::MoeLayer;
  QComboBox* speed_;
  QComboBox* stepSize_;
  QLabel* timeLabel_;
  QLabel* stageLabel_;
  QLabel* verifyLabel_;
  QPushButton* liveButton_;
  std::unique_ptr<FrameLog> frameLog_;
  bool playing_ = false;  // the controller is playing, stepping to a stage end or to the end
};

}  // namespace moe::ui
