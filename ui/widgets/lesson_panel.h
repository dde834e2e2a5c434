#pragma once
// The lesson panel: pick a lesson, read the step's narration, go Back or Next. The window
// does what a step asks (scenario, run, view, selection); the panel only says which step.
// A lesson file that failed validation stays in the list with its error; the others work.

#include <QWidget>
#include <vector>

#include "ui/models/lesson.h"

class QLabel;
class QPushButton;
class QToolButton;

namespace moe::ui {

class LessonPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonPanel(std::vector<LessonEntry> lessons, QWidget* parent = nullptr);
  const std::vector<LessonEntry>& lessons() const { return lessons_; }
  // Shows lesson `index` (into lessons()) at `step`, and asks the window to run it.
  void showStep(int index, int step);
  int currentLesson() const { return lesson_; }
  int currentStep() const { return step_; }
  QString narration() const;
  // The step's narration with its {quantity} fields filled from the moment it shows (until
  // then they read "…").
  void setFilledNarration(const QString& text);
  QPushButton* nextButton() const { return next_; }
  QPushButton* backButton() const { return back_; }
  // A column beside the views: tall rather than wide.
  QSize sizeHint() const override { return {340, 480}; }

 signals:
  void stepRequested(const moe::ui::Lesson& lesson, int step);

 private:
  void refresh();
  // The narration's minimum height is that of all its lines at the panel's width, so the
  // dock never cuts the last sentence off.
  void fitNarration();

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  std::vector<LessonEntry> lessons_;
  int lesson_ = -1;
  int step_ = 0;
  QToolButton* picker_;  // "Lessons": a menu of every lesson
  QLabel* title_;        // the lesson shown, wrapped to the column
  QLabel* position_;
  QLabel* narration_;
  QPushButton* back_;
  QPushButton* next_;
};

}  // namespace moe::ui
