#include "ui/models/scenario_diff.h"

#include <QObject>
#include <QStringList>
#include <map>

#include "core/scenario/scenario_json.h"

namespace moe::ui {

namespace {

void flatten(const nlohmann::json& j, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  if (!j.is_object()) {
    out[prefix] = j.is_string() ? j.get<std::string>() : j.dump();
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    flatten(*it, prefix.empty() ? it.key() : prefix + "." + it.key(), out);
}

}  // namespace

std::vector<FieldChange> scenarioChanges(const Scenario& from, const Scenario& to) {
  nlohmann::json ja = scenarioToJson(from), jb = scenarioToJson(to);
  if (from.rings.same() != to.rings.same())
    for (nlohmann::json* j : {&ja, &jb})
      if (!(*j)["rings"].contains("dispatch")) {
        const nlohmann::json r = (*j)["rings"];
        (*j)["rings"] = {{"dispatch", r}, {"combine", r}};
      }
  std::map<std::string, std::string> a, b;
  flatten(ja, "", a);
  flatten(jb, "", b);
  for (const auto& [k, v] : b) a.emplace(k, "(none)");
  std::vector<FieldChange> out;
  for (const auto& [k, v] : a) {
    const auto it = b.find(k);
    const std::string w = it == b.end() ? "(none)" : it->second;
    if (v != w) out.push_back({k, v, w});
  }
  return out;
}

QString scenarioDiffSummary(const Scenario& from, const Scenario& to, int shown) {
  const std::vector<FieldChange> changes = scenarioChanges(from, to);
  QStringList parts;
  for (const FieldChange& c : changes) {
    if (parts.size() == shown) {
      parts << QObject::tr("…");
      break;
    }
    parts << QString("%1 %2 → %3")
                 .arg(QString::fromStdString(c.path), QString::fromStdString(c.from).left(16),
                      QString::fromStdString(c.to).left(16));
  }
  return parts.join(", ");
}

}  // namespace moe::ui
