#pragma once
// The parts of the Compare view's figures, one tab each in this order, by the names lesson
// files use (`"show": "table"`): a step that talks about the chart or the table selects its
// tab.

#include <QString>
#include <QStringList>
#include <optional>

namespace moe::ui {

enum class ComparePart { Timelines, Chart, Table, Why };

inline QStringList comparePartNames() {
  return {QStringLiteral("timelines"), QStringLiteral("chart"), QStringLiteral("table"),
          QStringLiteral("why")};
}

inline std::optional<ComparePart> comparePartFromName(const QString& name) {
  const auto i = comparePartNames().indexOf(name);
  if (i < 0) return std::nullopt;
  return static_cast<ComparePart>(i);
}

}  // namespace moe::ui
