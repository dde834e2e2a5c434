#pragma once
// What a lesson step expects to see, and the numbers its narration quotes. A condition is
// "<quantity> <op> <number>" (op: >=, <=, >, <, ==, !=) over the named quantities of
// lesson_quantities.h; a narration field is "{quantity}" or "{quantity:FORMAT}" (FORMAT:
// "%" a fraction as a whole percent, a digit 0-3 that many decimals). Both are parsed when
// the lesson file is loaded, so a typo is a load error, and checked or filled from the
// state the step's picture shows.

#include <QString>
#include <optional>
#include <string>
#include <vector>

#include "ui/models/lesson_quantities.h"

namespace moe::ui {

struct LessonCondition {
  std::string text;  // as written, for reports
  const LessonQuantity* quantity = nullptr;
  enum class Op { Ge, Le, Gt, Lt, Eq, Ne } op = Op::Ge;
  double value = 0;
};

// Parses one condition; on a malformed one returns the rule it breaks in `error`.
std::optional<LessonCondition> parseLessonCondition(const std::string& text, std::string& error);

// The first problem with the narration's template fields ("" if none): an unknown quantity,
// an unknown format or an unclosed brace.
std::string lessonTemplateError(const QString& narration);

struct LessonCheck {
  std::string what;  // "stage == dispatch-streaming" or the condition's text
  std::string measured;
  bool held = false;
};

// The stage expectation first, then each condition, measured on `state`.
std::vector<LessonCheck> checkLessonStep(const std::string& expectedStage,
                                         const std::vector<LessonCondition>& conditions,
                                         const LessonState& state);
// The narration with every field replaced by its value on `state`.
QString fillLessonNarration(const QString& narration, const LessonState& state);

}  // namespace moe::ui
