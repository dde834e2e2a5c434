#pragma once
// The workbench window: run controls and status on top, one tab per view (view_registry.h),
// the inspector and the lesson panel on the side. It puts together the worker threads
// (BackgroundRuns), the views (ViewSet), the toolbars (RunControls), the redraw tick that
// hands the latest Frame to the views (RedrawTick) and the lesson player (LessonDriver),
// and keeps the scenario of the live run.

#include <QMainWindow>
#include <memory>
#include <vector>

#include "core/runtime/layer_context.h"
#include "ui/models/lesson.h"
#include "ui/models/selection.h"
#include "ui/run/frame.h"
#include "ui/widgets/ab_compare_view.h"
#include "ui/widgets/card_view.h"
#include "ui/widgets/compare_view.h"
#include "ui/widgets/sweep_view.h"
#include "ui/widgets/timeline_tab.h"
#include "ui/widgets/view_registry.h"

class QAction;

namespace moe::ui {

class BackgroundRuns;
class FrameLog;
class LessonDriver;
class LessonPanel;
class RedrawTick;
class RunControls;
class TimelineWidget;
class ViewSet;

class MainWindow : public QMainWindow, public ViewHost {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads a scenario into the live run (and the editor), paused at time 0.
  void loadScenario(const Scenario& sc, Fault fault = Fault::None) override;
  RunController* controller() const override;
  SweepRunner* sweepRunner() const override;
  std::shared_ptr<const Snapshot> liveSnapshot() const;
  std::shared_ptr<const Snapshot> shownSnapshot() const;
  const Verification& verification() const { return verification_; }
  const Scenario& scenario() const { return scenario_; }
  // The fault planted in the loaded scenario's runs (a lesson step's).
  Fault fault() const { return fault_; }

  // The views, by their id in viewRegistry() (also each page's object name, by which the
  // tests find it).
  QWidget* page(const QString& id) const override;
  template <typename V>
  V* view(const QString& id) const {
    return static_cast<V*>(page(id));
  }
  void showView(const QString& id) override;
  // The views the screenshot writer and the recorder drive (app/moe_workbench).
  CardView* cardView() const { return view<CardView>("card"); }
  TimelineWidget* timeline() const { return view<TimelineTab>("timeline")->timeline(); }
  CompareView* compare() const { return view<CompareView>("compare"); }
  AbCompareView* abCompare() const { return view<AbCompareView>("ab"); }
  SweepView* sweep() const { return view<SweepView>("sweep"); }
  // Highlights an element in the views and describes it in the Inspector.
  void select(const Selection& sel) override;

  // The toolbars.
  QAction* runAction() const;
  // Steps by the amount chosen in the step-size combo, forward or back.
  void step(bool forward);
  // Sets the playback speed (emulated ps per wall second) and shows it in the speed box.
  void setPlaybackSpeed(double psPerWallSecond);
  // Presenter mode: the high-contrast palette (the scale is set at start-up, --presenter).
  void setPresenterMode(bool on);
  bool presenterMode() const { return presenter_; }

  // Runs the current scenario and design to the end as A/B side 0 (pin A) or 1 (B).
  void startAb(int side) override;
  void startCompare() override;
  // Tunes the streaming design's tiling of the current scenario in the tune thread (the
  // same search as `moe-sim tune`), then shows what it would change (TuneDiffDialog) and
  // loads the result only if the user applies it.
  void startTune(int budget = 48);
  // Regenerates the eplb table with EPLB from a per-expert load and re-runs the layer.
  void rebalance(const std::vector<double>& perExpertLoad, int redundantExperts) override;
  void setScenarioValid(bool ok, const QString& why) override;

  // Does what a lesson step asks: its scenario and design, a run from time 0 to its moment,
  // its view and selection. lessonStepShown follows once the views show that moment.
  void showLessonStep(const Lesson& lesson, int step);
  LessonPanel* lessonPanel() const;
  // The shown lesson step's expectations measured at its moment (stage first), once
  // lessonStepShown has been emitted; empty before.
  const std::vector<LessonCheck>& lessonChecks() const;
  // Every lesson quantity at that moment, for lesson authors (steps.json).
  const std::vector<std::pair<std::string, double>>& lessonValues() const;

  // Logs every redraw tick's timing into `path` (frame_log.h); false if it cannot be written.
  bool setFrameLog(const QString& path);
  const FrameLog* frameLog() const;

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
  void connectController();
  void connectRunners();
  // Asks with a TuneDiffDialog whether to load the tuned scenario.
  void offerTuned(const Scenario& tuned, const QString& summary);

  std::unique_ptr<BackgroundRuns> runs_;
  std::unique_ptr<ViewSet> views_;
  RunControls* controls_ = nullptr;
  RedrawTick* tick_ = nullptr;  // null until built: event() runs during construction
  LessonDriver* lessons_ = nullptr;
  QAction* presenterAction_ = nullptr;
  bool presenter_ = false;
  Scenario scenario_;
  Fault fault_ = Fault::None;
  Scenario compared_;  // the scenario Compare's figures are for
  Verification verification_;
};

}  // namespace moe::ui
