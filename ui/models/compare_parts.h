#pragma once
// The parts of the Compare view's figures, top to bottom, by the names lesson files use
// (`"show": "table"`): at 1920x1080 only the first fits above the fold, so a step that talks
// about the chart or the table brings it to the top.

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
