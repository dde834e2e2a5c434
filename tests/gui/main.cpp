#include <QApplication>
#include <QSet>
#include <QTest>
#include <cstdio>

#include "gui_test_registry.h"
#include "ui/run/frame.h"

namespace moe::ui::test {
std::vector<Factory>& registry() {
  static std::vector<Factory> r;
  return r;
}
}  // namespace moe::ui::test

namespace {
// A comma-separated list of class names from the environment; empty when it is unset.
QSet<QByteArray> classList(const char* variable) {
  QSet<QByteArray> out;
  for (const QByteArray& name : qgetenv(variable).split(','))
    if (!name.trimmed().isEmpty()) out.insert(name.trimmed());
  return out;
}

// "moe::ui::test::PlaybackTest" -> "PlaybackTest".
QByteArray shortName(const QObject& test) {
  const QByteArray full = test.metaObject()->className();
  return full.mid(full.lastIndexOf(':') + 1);
}
}  // namespace

// MOE_GUI_TEST_CLASS=A,B runs only the classes named (exactly, without the namespace), so a
// test function can be picked on the command line without the other classes rejecting it.
// MOE_GUI_TEST_SKIP=A,B runs every class but those. ctest splits the slow classes into
// entries of their own this way, so they run beside the rest (tests/CMakeLists.txt). A name
// that matches no class fails the run: a renamed class must not leave an entry that tests
// nothing.
int main(int argc, char** argv) {
  QApplication app(argc, argv);
  moe::ui::registerMetaTypes();
  const QSet<QByteArray> only = classList("MOE_GUI_TEST_CLASS");
  const QSet<QByteArray> skip = classList("MOE_GUI_TEST_SKIP");
  QSet<QByteArray> seen;
  int failures = 0;
  for (const auto& make : moe::ui::test::registry()) {
    auto t = make();
    const QByteArray name = shortName(*t);
    seen.insert(name);
    if (!only.isEmpty() && !only.contains(name)) continue;
    if (skip.contains(name)) continue;
    failures += QTest::qExec(t.get(), argc, argv);
  }
  for (const QByteArray& name : only + skip) {
    if (seen.contains(name)) continue;
    std::fprintf(stderr, "gui_tests: no test class is named %s\n", name.constData());
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}
