#pragma once
// The quantities a lesson step may check and quote: a few named numbers computed from the
// live run's state (the snapshot the views show, the expert load, the verdict). A lesson
// names them in its expectations ("cores_wait_space >= 1") and in its narration
// ("{hot_share:%}"), so the text and the picture read the same numbers. Names are checked
// when the lesson file is loaded; an unknown name is an error there, never at run time.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/observe/snapshot.h"
#include "core/run/expert_balance.h"
#include "core/scenario/scenario.h"
#include "ui/models/selection.h"

namespace moe::ui {

// What a lesson step's moment looks like: everything a quantity may read.
struct LessonState {
  const Snapshot& snap;
  const Scenario& scenario;
  const ExpertLoad* load = nullptr;  // the MoE layer's expert load (null: none yet)
  Selection selection;               // the step's selected element
  int card = -1;          // the card the step shows: core counts cover it alone (-1: every card)
  bool verified = false;  // the run finished and every check passed
};

struct LessonQuantity {
  std::string_view name;
  std::string_view meaning;  // one line: docs/LESSONS.md and the error for an unknown name
  double (*measure)(const LessonState&);
};

// Every quantity, in the order docs/LESSONS.md lists them.
const std::vector<LessonQuantity>& lessonQuantities();
// The quantity named `name`, or null.
const LessonQuantity* findLessonQuantity(std::string_view name);
// "cores_working, cores_waiting, ...": for error messages.
std::string lessonQuantityNames();

}  // namespace moe::ui
