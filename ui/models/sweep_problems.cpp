#include "ui/models/sweep_problems.h"

#include <QStringList>

#include "core/studies/sweep_point.h"

namespace moe::ui {

namespace {

QString valueText(const nlohmann::json& v) {
  return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

}  // namespace

QString rowProblem(const SweepRow& row) {
  const auto status = row.find("status");
  if (status == row.end() || !status->is_string() || *status == "ok") return {};
  QString text = valueText(*status);
  const auto message = row.find("message");
  if (message != row.end() && message->is_string() && !message->get<std::string>().empty())
    text += QStringLiteral(": ") + valueText(*message);
  return text;
}

QString pointValuesText(const SweepSpec& spec, std::size_t index) {
  const std::vector<nlohmann::json> values = sweepPointValues(spec, index);
  QStringList parts;
  for (std::size_t a = 0; a < spec.axes.size() && a < values.size(); ++a)
    parts << QString("%1 = %2").arg(QString::fromStdString(spec.axes[a].field),
                                    valueText(values[a]));
  return parts.join(", ");
}

std::vector<SweepProblem> sweepProblems(const SweepResult& result) {
  std::vector<SweepProblem> out;
  for (std::size_t p = 0; p < result.points.size(); ++p) {
    const std::vector<SweepRow>& rows = result.points[p];
    // An invalid scenario fails every design with one message: say it once. Designs that
    // fail differently (one deadlocks) are named.
    QStringList reasons;
    bool allSame = !rows.empty();
    for (const SweepRow& r : rows) {
      const QString problem = rowProblem(r);
      allSame = allSame && !problem.isEmpty() && problem == rowProblem(rows.front());
    }
    if (allSame) {
      reasons << rowProblem(rows.front());
    } else {
      for (const SweepRow& r : rows) {
        const QString problem = rowProblem(r);
        if (!problem.isEmpty())
          reasons << QString("%1 %2").arg(valueText(r.value("design", nlohmann::ordered_json())),
                                          problem);
      }
    }
    if (reasons.isEmpty()) continue;
    out.push_back({p, QObject::tr("point %1 (%2): %3")
                          .arg(p)
                          .arg(pointValuesText(*result.spec, p), reasons.join("; "))});
  }
  return out;
}

}  // namespace moe::ui
