#pragma once
// Plays guided lessons in the window: the Lesson dock with its panel, and for each step its
// scenario and design, a run to its moment (on from the live run when that is the same
// load and the moment lies ahead, else from time 0), its view and selection; once the
// views show that moment it measures the step's expectations and fills its narration.

#include <QObject>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ui/models/lesson.h"

class QDockWidget;

namespace moe::ui {

class LessonPanel;
class MainWindow;
class RedrawTick;
class RunControls;
class ViewSet;

class LessonDriver : public QObject {
  Q_OBJECT
 public:
  // Docks the panel above the Inspector, hidden until a lesson is chosen.
  LessonDriver(MainWindow& window, ViewSet& views, RunControls& controls, RedrawTick& tick);

  LessonPanel* panel() const { return panel_; }
  QDockWidget* dock() const { return dock_; }
  void showStep(const Lesson& lesson, int step);
  const std::vector<LessonCheck>& checks() const { return checks_; }
  const std::vector<std::pair<std::string, double>>& values() const { return values_; }

 signals:
  void stepShown();

 private:
  // Measures the shown step's expectations and fills its narration's numbers.
  void measure();
  // Gives the Lesson dock the height its panel needs and the Inspector below it the rest.
  void fitDock();

  MainWindow& window_;
  ViewSet& views_;
  RunControls& controls_;
  RedrawTick& tick_;
  LessonPanel* panel_;
  QDockWidget* dock_;
  std::optional<LessonStep> step_;  // the step being shown, until the user runs freely
  std::vector<LessonCheck> checks_;
  std::vector<std::pair<std::string, double>> values_;
};

}  // namespace moe::ui
