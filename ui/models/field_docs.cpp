#include "ui/models/field_docs.h"

#include <QFile>
#include <QObject>
#include <QRegularExpression>
#include <QStringList>

// Resources of a static library are registered by hand, at global scope.
static void initUiResources() {
  Q_INIT_RESOURCE(ui_resources);
}

namespace moe::ui {

namespace {
QStringList cells(const QString& row) {
  QStringList c = row.trimmed().split('|');
  if (!c.isEmpty()) c.removeFirst();  // before the leading '|'
  if (!c.isEmpty()) c.removeLast();   // after the trailing '|'
  for (QString& s : c) s = s.trimmed();
  return c;
}

QString plain(QString s) {
  return s.remove('`');
}
}  // namespace

QHash<QString, QString> parseFieldDocs(const QString& markdown) {
  QHash<QString, QString> docs;
  static const QRegularExpression section("^###\\s+`?([a-z_ A-Z]+)`?\\s*$");
  static const QRegularExpression key("`([a-z_0-9.]+)`");
  QString prefix;
  QStringList header;
  bool inTable = false;
  for (const QString& line : markdown.split('\n')) {
    const auto m = section.match(line);
    if (m.hasMatch()) {
      prefix = m.captured(1) == "Top level" ? QString() : m.captured(1);
      inTable = false;
      continue;
    }
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    if (!inTable) {  // the header row
      header = cells(line);
      inTable = true;
      continue;
    }
    if (line.startsWith("|---")) continue;
    const QStringList c = cells(line);
    if (c.isEmpty()) continue;
    // Hardware override fields have their own table, keyed "field".
    const QString base =
        header.value(0) == "field" && prefix == "hardware" ? QString("hardware.overrides") : prefix;
    QStringList parts;
    for (int i = 1; i < c.size() && i < header.size(); ++i) {
      if (c[i].isEmpty()) continue;
      const QString name = header[i] == "910B3" ? QString("910B3 value") : header[i];
      parts << (name == "meaning" ? plain(c[i]) : QString("%1: %2").arg(name, plain(c[i])));
    }
    auto it = key.globalMatch(c[0]);
    while (it.hasNext()) {
      const QString k = it.next().captured(1);
      // Dotted keys are full paths (the cross-field rules table).
      const QString path = k.contains('.') || base.isEmpty() ? k : base + "." + k;
      QString& text = docs[path];
      const QString add =
          header.value(1) == "rule" ? "Rule: " + plain(c.value(1)) : parts.join("; ");
      text = text.isEmpty() ? add : text + "\n" + add;
    }
  }
  return docs;
}

const QHash<QString, QString>& scenarioFieldDocs() {
  static const QHash<QString, QString> docs = [] {
    initUiResources();
    QFile f(":/docs/SCENARIO.md");
    if (!f.open(QIODevice::ReadOnly)) return QHash<QString, QString>{};
    return parseFieldDocs(QString::fromUtf8(f.readAll()));
  }();
  return docs;
}

QString fieldDoc(const QString& path) {
  // A stage's own ring field is documented once, under the flat key it overrides.
  for (const QString& stage : {QStringLiteral("dispatch"), QStringLiteral("combine")}) {
    const QString prefix = "rings." + stage + ".";
    if (path.startsWith(prefix)) {
      const QString flat = scenarioFieldDocs().value("rings." + path.mid(prefix.size()));
      if (!flat.isEmpty()) return flat + QObject::tr(" (the %1 stage's own)").arg(stage);
    }
  }
  return scenarioFieldDocs().value(path);
}

}  // namespace moe::ui
