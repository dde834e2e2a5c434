#pragma once
// What each scenario field means, for tooltips, read from docs/SCENARIO.md itself (embedded
// in the workbench as a Qt resource): the schema documentation is the one source, so the
// editor's help and the docs cannot drift apart.

#include <QHash>
#include <QString>

namespace moe::ui {

// Field path ("model.hidden", "hardware.overrides.hbm_gbps", "eplb.table_from") -> plain
// text: type, default, range, meaning, and any cross-field rule on it.
QHash<QString, QString> parseFieldDocs(const QString& markdown);
// The parsed docs/SCENARIO.md, read once.
const QHash<QString, QString>& scenarioFieldDocs();
// The docs text for `path`, or an empty string if the docs do not describe it.
QString fieldDoc(const QString& path);

}  // namespace moe::ui
