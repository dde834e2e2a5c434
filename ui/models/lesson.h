#pragma once
// Guided lessons: a lesson is a data file in resources/lessons/ with an ordered list of
// steps; each step says which scenario and design to run (fixed by the file, never taken
// from the toolbar), where to run to (a stage, a time, the first busy moment, or the end),
// which view to show with which element selected, a short narration whose numbers are
// filled from the run, and the state it expects (a stage and conditions on counts).
// Parsing and validation are here, without widgets: a malformed file, or a run_to target
// the step's design can never reach, gets one clear error naming the lesson, the step and
// the field.

#include <QString>
#include <optional>
#include <vector>

#include "core/runtime/layer_context.h"
#include "core/scenario/scenario.h"
#include "ui/models/lesson_expect.h"
#include "ui/models/selection.h"

namespace moe::ui {

struct LessonTarget {
  enum class Kind { Stage, Time, Busy, End } kind = Kind::End;
  std::string stage;  // Stage: run until this stage has begun ...
  Time after = 0;     // ... and then this much longer (0: until its cores are at work)
  Time time = 0;      // Time: run to this emulated time
};

struct LessonStep {
  QString narration;
  Scenario scenario;   // the full scenario of this step (changes so far applied)
  std::string design;  // "streaming", "phased", ...: the step's, else the lesson's, else the
                       // workload's default design
  LessonTarget target;
  QString view;               // a view id: one of the views parseLesson was given
  QString show;               // the compare view's part to bring to the top ("": its top)
  Selection selection;        // what to select and highlight (kind None: nothing)
  int card = -1;              // the card the Card view shows (-1: leave it)
  Fault fault = Fault::None;  // a fault planted for this step only (streaming combine)
  std::string expectStage;    // the stage the picture shows: one of the design's, or "done"
  std::vector<LessonCondition> expect;  // what else must hold at that moment
};

struct Lesson {
  QString name;  // the file name without .json
  QString title;
  std::vector<LessonStep> steps;
};

// Parses one lesson; throws InputError "lesson NAME, step N, FIELD: RULE" when malformed.
// `views`: the view ids a step may name, in tab order (the view registry's lesson views,
// lessonViews() in ui/widgets: the models know no widgets).
Lesson parseLesson(const QString& name, const QByteArray& json, const std::vector<QString>& views);

// Every lesson shipped in resources/lessons/ (compiled in), in file-name order: the valid
// ones parsed, the invalid ones with their error (they stay listed; the others work).
struct LessonEntry {
  QString name;
  std::optional<Lesson> lesson;
  QString error;
};
std::vector<LessonEntry> builtinLessons(const std::vector<QString>& views);

}  // namespace moe::ui
