#include "ui/models/lesson.h"

#include "ui/models/compare_parts.h"

#include <QDir>
#include <QFile>
#include <QStringList>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/run/design.h"
#include "core/run/design_registry.h"
#include "core/scenario/scenario_json.h"
#include "core/util/error.h"

static void initUiResourcesForLessons() {
  Q_INIT_RESOURCE(ui_resources);
}

namespace moe::ui {

namespace {
using nlohmann::json;

struct Where {
  QString lesson;
  int step = 0;  // 1-based; 0: the lesson itself
  [[noreturn]] void fail(const std::string& field, const std::string& rule) const {
    std::string at = "lesson " + lesson.toStdString();
    if (step > 0) at += ", step " + std::to_string(step);
    throw InputError(at + ", " + field, rule);
  }
};

void onlyKeys(const Where& w, const json& obj, const std::string& prefix,
              std::initializer_list<const char*> keys) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known |= it.key() == k;
    if (!known) w.fail(prefix + it.key(), "unknown key");
  }
}

std::string text(const Where& w, const json& obj, const char* key, bool required) {
  if (!obj.contains(key)) {
    if (required) w.fail(key, "is required");
    return {};
  }
  if (!obj[key].is_string() || obj[key].get<std::string>().empty())
    w.fail(key, "must be a non-empty string");
  return obj[key].get<std::string>();
}

// Applies `changes` (a partial scenario object) on top of `base` and validates the result.
json merged(const Where& w, const json& base, const json& changes, const std::string& field) {
  if (!changes.is_object()) w.fail(field, "must be an object of scenario fields");
  json out = base;
  out.merge_patch(changes);
  try {
    (void)scenarioFromJson(out);
  } catch (const std::exception& e) {
    w.fail(field, std::string("not a valid scenario: ") + e.what());
  }
  return out;
}

LessonTarget target(const Where& w, const json& j) {
  const bool plus = j.is_object() && j.contains("plus_us");
  if (!j.is_object() || j.size() != (plus ? 2u : 1u))
    w.fail("run_to", "must be an object with one of stage (and plus_us), time_us, busy, end");
  LessonTarget t;
  if (plus && !j.contains("stage")) w.fail("run_to.plus_us", "goes with run_to.stage only");
  if (j.contains("stage")) {
    t.kind = LessonTarget::Kind::Stage;
    if (!j["stage"].is_string()) w.fail("run_to.stage", "must be a stage name");
    t.stage = j["stage"].get<std::string>();
    if (plus) {
      if (!j["plus_us"].is_number() || j["plus_us"].get<double>() <= 0)
        w.fail("run_to.plus_us", "must be a number > 0");
      t.after = static_cast<Time>(j["plus_us"].get<double>() * static_cast<double>(kUs));
    }
  } else if (j.contains("time_us")) {
    t.kind = LessonTarget::Kind::Time;
    if (!j["time_us"].is_number() || j["time_us"].get<double>() < 0)
      w.fail("run_to.time_us", "must be a number >= 0");
    t.time = static_cast<Time>(j["time_us"].get<double>() * static_cast<double>(kUs));
  } else if (j.contains("busy")) {
    t.kind = LessonTarget::Kind::Busy;
    if (j["busy"] != true) w.fail("run_to.busy", "must be true");
  } else if (j.contains("end")) {
    t.kind = LessonTarget::Kind::End;
    if (j["end"] != true) w.fail("run_to.end", "must be true");
  } else {
    w.fail("run_to." + j.begin().key(), "unknown key (stage, time_us, busy or end)");
  }
  return t;
}

// The design's stage names, in run order: what run_to.stage and expect.stage may name.
std::vector<std::string> stageNames(Design d) {
  std::vector<std::string> out;
  for (const DesignStage& s : designEntry(d).stages) out.emplace_back(s.name);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A target the design can never reach would run silently to the end: refuse it here.
// Only the streaming dispatch (its rings) and the pipelined fused kernel (its workspace)
// have a busy moment; a stage must be one the design runs.
void checkReachable(const Where& w, const LessonTarget& t, Design d) {
  const std::string name(designName(d));
  if (t.kind == LessonTarget::Kind::Busy && d != Design::Streaming && d != Design::Pipelined)
    w.fail("run_to.busy", "the " + name +
                              " design never becomes busy (only streaming, by its rings, and "
                              "pipelined, by its workspace, do); run to a stage or a time");
  if (t.kind == LessonTarget::Kind::Stage) {
    const std::vector<std::string> names = stageNames(d);
    if (std::find(names.begin(), names.end(), t.stage) == names.end())
      w.fail("run_to.stage", "the " + name + " design never runs \"" + t.stage +
                                 "\"; its stages are " + joined(names));
  }
}

void expectation(const Where& w, const json& j, Design d, LessonStep& step) {
  if (!j.is_object()) w.fail("expect", "must be an object with stage and that");
  onlyKeys(w, j, "expect.", {"stage", "that"});
  if (!j.contains("stage") || !j["stage"].is_string())
    w.fail("expect.stage", "is required: the stage the step shows (or done)");
  step.expectStage = j["stage"].get<std::string>();
  std::vector<std::string> names = stageNames(d);
  names.push_back("done");
  if (std::find(names.begin(), names.end(), step.expectStage) == names.end())
    w.fail("expect.stage", "the " + std::string(designName(d)) + " design never shows \"" +
                               step.expectStage + "\"; it shows " + joined(names));
  if (!j.contains("that")) return;
  if (!j["that"].is_array()) w.fail("expect.that", "must be an array of conditions");
  for (std::size_t i = 0; i < j["that"].size(); ++i) {
    const std::string field = "expect.that[" + std::to_string(i) + "]";
    if (!j["that"][i].is_string()) w.fail(field, "must be a string");
    std::string error;
    const std::optional<LessonCondition> c =
        parseLessonCondition(j["that"][i].get<std::string>(), error);
    if (!c) w.fail(field, error);
    step.expect.push_back(*c);
  }
}

// A step's "show": a part of the Compare view's figures, on a step that shows that view.
QString comparePart(const Where& w, const json& step, const QString& view) {
  const QString part = QString::fromStdString(text(w, step, "show", true));
  if (view != "compare")
    w.fail("show", "is for the compare view only (its timelines, chart, table or why)");
  if (!comparePartFromName(part))
    w.fail("show", "must be one of " + comparePartNames().join(", ").toStdString());
  return part;
}

Selection selection(const Where& w, const json& j) {
  if (!j.is_object() || j.size() != 1)
    w.fail("select", "must be an object with one of card, core, ring, link, stages");
  const std::pair<const char*, Selection::Kind> kinds[] = {{"card", Selection::Kind::Card},
                                                           {"core", Selection::Kind::Core},
                                                           {"ring", Selection::Kind::Ring},
                                                           {"link", Selection::Kind::Link},
                                                           {"stages", Selection::Kind::Stages}};
  for (const auto& [key, kind] : kinds)
    if (j.contains(key)) {
      if (!j[key].is_number_integer() || j[key].get<int>() < 0)
        w.fail(std::string("select.") + key, "must be an integer >= 0");
      return Selection{kind, j[key].get<int>()};
    }
  w.fail("select." + j.begin().key(), "unknown key (card, core, ring, link or stages)");
}
}  // namespace

Lesson parseLesson(const QString& name, const QByteArray& bytes,
                   const std::vector<QString>& views) {
  Where w{name, 0};
  json j;
  try {
    j = json::parse(bytes.constData(), bytes.constData() + bytes.size());
  } catch (const json::exception& e) {
    w.fail("(file)", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) w.fail("(file)", "must be a JSON object");
  onlyKeys(w, j, "", {"title", "scenario", "design", "steps"});
  Lesson lesson;
  lesson.name = name;
  lesson.title = QString::fromStdString(text(w, j, "title", true));
  json sc = scenarioToJson(defaultScenario());
  if (j.contains("scenario")) sc = merged(w, sc, j["scenario"], "scenario");
  if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty())
    w.fail("steps", "must be a non-empty array");
  // The lesson's design, else the workload's default: never whatever the toolbar shows.
  std::string design = j.contains("design") ? text(w, j, "design", true) : std::string();
  for (std::size_t i = 0; i < j["steps"].size(); ++i) {
    w.step = static_cast<int>(i) + 1;
    const json& s = j["steps"][i];
    if (!s.is_object()) w.fail("(step)", "must be an object");
    onlyKeys(w, s, "",
             {"narration", "scenario", "design", "run_to", "view", "show", "select", "card",
              "fault", "expect"});
    LessonStep step;
    step.narration = QString::fromStdString(text(w, s, "narration", true));
    if (const std::string bad = lessonTemplateError(step.narration); !bad.empty())
      w.fail("narration", bad);
    if (s.contains("scenario")) sc = merged(w, sc, s["scenario"], "scenario");
    step.scenario = scenarioFromJson(sc);
    if (s.contains("design")) design = text(w, s, "design", true);
    const WorkloadKind workload = step.scenario.workload.kind;
    const std::optional<Design> d =
        design.empty() ? std::optional<Design>(defaultDesign(workload)) : designFromName(design);
    if (!d || workloadOf(*d) != workload)
      w.fail("design", workload == WorkloadKind::AlltoallMatmulRs
                           ? "must be pipelined or sequential for this workload"
                           : "must be streaming, phased or flat for this workload");
    step.design = std::string(designName(*d));
    if (s.contains("fault")) {
      const std::optional<Fault> fault = faultFromName(text(w, s, "fault", true));
      if (!fault) w.fail("fault", "must be none, drop-tail or stall-core");
      // The faults are planted in the MoE layer's streaming combine: anywhere else the step
      // would promise a failure that never happens.
      if (*fault != Fault::None && (step.scenario.workload.kind != WorkloadKind::MoeLayer ||
                                    !designInfo(*d).streamingCombine))
        w.fail("fault", "needs the moe-layer workload with the streaming design");
      step.fault = *fault;
    }
    if (!s.contains("run_to")) w.fail("run_to", "is required");
    step.target = target(w, s["run_to"]);
    checkReachable(w, step.target, *d);
    step.view = QString::fromStdString(text(w, s, "view", true));
    if (std::find(views.begin(), views.end(), step.view) == views.end())
      w.fail("view",
             "must be one of " + QStringList(views.begin(), views.end()).join(", ").toStdString());
    if (s.contains("show")) step.show = comparePart(w, s, step.view);
    if (s.contains("select")) step.selection = selection(w, s["select"]);
    if (s.contains("card")) {
      if (!s["card"].is_number_integer() || s["card"].get<int>() < 0)
        w.fail("card", "must be an integer >= 0");
      step.card = s["card"].get<int>();
      if (step.card >= step.scenario.cluster.servers * step.scenario.cluster.cardsPerServer)
        w.fail("card", "must be less than the number of cards");
    }
    if (!s.contains("expect"))
      w.fail("expect", "is required: the stage (and counts) the step shows");
    expectation(w, s["expect"], *d, step);
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

std::vector<LessonEntry> builtinLessons(const std::vector<QString>& views) {
  initUiResourcesForLessons();
  std::vector<LessonEntry> out;
  const QDir dir(":/lessons");
  for (const QString& file : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
    LessonEntry e;
    e.name = file.chopped(5);
    QFile f(dir.filePath(file));
    try {
      if (!f.open(QIODevice::ReadOnly))
        throw InputError("lesson " + e.name.toStdString(), "cannot be read");
      e.lesson = parseLesson(e.name, f.readAll(), views);
    } catch (const std::exception& ex) {
      e.error = QString::fromStdString(ex.what());
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace moe::ui
