#include "ui/models/lesson.h"

#include <QDir>
#include <QFile>
#include <nlohmann/json.hpp>

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
  if (!j.is_object() || j.size() != 1)
    w.fail("run_to", "must be an object with one of stage, time_us, busy, end");
  LessonTarget t;
  if (j.contains("stage")) {
    t.kind = LessonTarget::Kind::Stage;
    if (!j["stage"].is_string()) w.fail("run_to.stage", "must be a stage name");
    t.stage = j["stage"].get<std::string>();
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

const std::vector<QString>& lessonViews() {
  static const std::vector<QString> views = {"cluster", "card",     "experts", "timeline",
                                             "metrics", "scenario", "compare"};
  return views;
}

Lesson parseLesson(const QString& name, const QByteArray& bytes) {
  Where w{name, 0};
  json j;
  try {
    j = json::parse(bytes.constData(), bytes.constData() + bytes.size());
  } catch (const json::exception& e) {
    w.fail("(file)", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) w.fail("(file)", "must be a JSON object");
  onlyKeys(w, j, "", {"title", "scenario", "steps"});
  Lesson lesson;
  lesson.name = name;
  lesson.title = QString::fromStdString(text(w, j, "title", true));
  json sc = scenarioToJson(defaultScenario());
  if (j.contains("scenario")) sc = merged(w, sc, j["scenario"], "scenario");
  if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty())
    w.fail("steps", "must be a non-empty array");
  std::string design;
  for (std::size_t i = 0; i < j["steps"].size(); ++i) {
    w.step = static_cast<int>(i) + 1;
    const json& s = j["steps"][i];
    if (!s.is_object()) w.fail("(step)", "must be an object");
    onlyKeys(w, s, "",
             {"narration", "scenario", "design", "run_to", "view", "select", "card", "fault"});
    LessonStep step;
    step.narration = QString::fromStdString(text(w, s, "narration", true));
    if (s.contains("scenario")) sc = merged(w, sc, s["scenario"], "scenario");
    step.scenario = scenarioFromJson(sc);
    if (s.contains("design")) {
      design = text(w, s, "design", true);
      const bool a2a = step.scenario.workload.kind == WorkloadKind::AlltoallMatmulRs;
      const bool ok = a2a ? design == "pipelined" || design == "sequential"
                          : design == "streaming" || design == "phased";
      if (!ok)
        w.fail("design", a2a ? "must be pipelined or sequential for this workload"
                             : "must be streaming or phased for this workload");
    }
    step.design = design;
    if (s.contains("fault")) {
      const std::optional<Fault> fault = faultFromName(text(w, s, "fault", true));
      if (!fault) w.fail("fault", "must be none, drop-tail or stall-core");
      // The faults are planted in the MoE layer's streaming combine: anywhere else the step
      // would promise a failure that never happens.
      if (*fault != Fault::None && (step.scenario.workload.kind != WorkloadKind::MoeLayer ||
                                    (!design.empty() && design != "streaming")))
        w.fail("fault", "needs the moe-layer workload with the streaming design");
      step.fault = *fault;
    }
    if (!s.contains("run_to")) w.fail("run_to", "is required");
    step.target = target(w, s["run_to"]);
    step.view = QString::fromStdString(text(w, s, "view", true));
    bool known = false;
    for (const QString& v : lessonViews()) known |= v == step.view;
    if (!known)
      w.fail("view", "must be one of cluster, card, experts, timeline, metrics, scenario, compare");
    if (s.contains("select")) step.selection = selection(w, s["select"]);
    if (s.contains("card")) {
      if (!s["card"].is_number_integer() || s["card"].get<int>() < 0)
        w.fail("card", "must be an integer >= 0");
      step.card = s["card"].get<int>();
      if (step.card >= step.scenario.cluster.servers * step.scenario.cluster.cardsPerServer)
        w.fail("card", "must be less than the number of cards");
    }
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

std::vector<LessonEntry> builtinLessons() {
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
      e.lesson = parseLesson(e.name, f.readAll());
    } catch (const std::exception& ex) {
      e.error = QString::fromStdString(ex.what());
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace moe::ui
