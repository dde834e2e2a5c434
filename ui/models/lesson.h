#pragma once
// Guided lessons: a lesson is a data file in resources/lessons/ with an ordered list of
// steps; each step says which scenario to run (changes to the default scenario, carried
// forward to later steps), where to run to (a stage, a time, the first busy moment, or the
// end), which view to show with which element selected, and a short narration.
// Parsing and validation are here, without widgets: a malformed file gets one clear error
// naming the lesson, the step and the field.

#include <QString>
#include <optional>
#include <vector>

#include "core/runtime/layer_context.h"
#include "core/scenario/scenario.h"
#include "ui/models/selection.h"

namespace moe::ui {

struct LessonTarget {
  enum class Kind { Stage, Time, Busy, End } kind = Kind::End;
  std::string stage;  // Stage: run until this stage has begun
  Time time = 0;      // Time: run to this emulated time
};

struct LessonStep {
  QString narration;
  Scenario scenario;   // the full scenario of this step (changes so far applied)
  std::string design;  // "" (the workload's default), "streaming", "phased", ...
  LessonTarget target;
  QString view;               // a tab: cluster, card, experts, timeline, metrics, scenario, compare
  Selection selection;        // what to select and highlight (kind None: nothing)
  int card = -1;              // the card the Card view shows (-1: leave it)
  Fault fault = Fault::None;  // a fault planted for this step only (streaming combine)
};

struct Lesson {
  QString name;  // the file name without .json
  QString title;
  std::vector<LessonStep> steps;
};

// Parses one lesson; throws InputError "lesson NAME, step N, FIELD: RULE" when malformed.
Lesson parseLesson(const QString& name, const QByteArray& json);

// The views a step may name, in tab order.
const std::vector<QString>& lessonViews();

// Every lesson shipped in resources/lessons/ (compiled in), in file-name order: the valid
// ones parsed, the invalid ones with their error (they stay listed; the others work).
struct LessonEntry {
  QString name;
  std::optional<Lesson> lesson;
  QString error;
};
std::vector<LessonEntry> builtinLessons();

}  // namespace moe::ui
