#pragma once
// The window's toolbars and status bar: Run, Pause, Back, Step and the other run controls
// with their keys, the speed and design boxes, the shown time and stage, the verdict and
// the "back to live" button. Run controls go straight to the RunController in its thread;
// what concerns the rest of the window is a signal.

#include <QObject>
#include <QString>
#include <vector>

#include "core/observe/snapshot.h"
#include "core/run/design.h"

class QAction;
class QComboBox;
class QLabel;
class QMainWindow;
class QPushButton;

namespace moe::ui {

class RunController;
struct Verification;

class RunControls : public QObject {
  Q_OBJECT
 public:
  RunControls(QMainWindow& window, RunController* controller);

  QAction* runAction() const { return run_; }
  QAction* tuneAction() const { return tune_; }

  // Steps by the amount chosen in the step-size combo, forward or back.
  void step(bool forward);
  void setPlaybackSpeed(double psPerWallSecond);
  // The design combo lists the designs of the workload; designsFor() is that workload.
  void setDesignChoices(WorkloadKind kind);
  WorkloadKind designsFor() const { return designsFor_; }
  Design design() const;
  // Selects `design` without reloading the scenario.
  void showDesign(Design design);

  void showMoment(const Snapshot& shown, bool scrubbed);
  void showVerification(const Verification& v);
  void setPlaying(bool playing);
  bool playing() const { return playing_; }
  void setScenarioValid(bool ok, const QString& why);
  void showScrubbed(Time t);  // offers the way back to live
  void hideLive();

 signals:
  void designChanged();
  void resetRequested();  // before the controller resets
  void tuneRequested();
  void liveRequested();

 private:
  struct StepSize {
    QString label;
    int events;  // > 0: a number of events
    Time time;   // > 0: emulated time
    bool stage;  // a whole stage
  };
  static const std::vector<StepSize>& stepSizes();
  void buildRunBar(QMainWindow& window);
  void addKeys(QMainWindow& window, QAction* back, QAction* fwd, QAction* stepStage, QAction* skip,
               QAction* end, QAction* reset);
  void buildSettingsBar(QMainWindow& window);
  void buildStatus(QMainWindow& window);

  RunController* controller_;
  QAction* run_;
  QAction* pause_;
  QAction* tune_;
  QComboBox* stepSize_;
  QComboBox* speed_;
  QComboBox* impl_;
  WorkloadKind designsFor_ = WorkloadKind::MoeLayer;
  QLabel* timeLabel_;
  QLabel* stageLabel_;
  QLabel* verifyLabel_;
  QPushButton* liveButton_;
  bool scenarioValid_ = true;
  bool playing_ = false;  // the controller is playing, stepping to a stage end or to the end
};

}  // namespace moe::ui
