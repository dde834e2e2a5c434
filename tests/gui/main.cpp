#include <QApplication>
#include <QTest>

#include "gui_test_registry.h"
#include "ui/run/frame.h"

namespace moe::ui::test {
std::vector<Factory>& registry() {
  static std::vector<Factory> r;
  return r;
}
}  // namespace moe::ui::test

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  moe::ui::registerMetaTypes();
  int failures = 0;
  // MOE_GUI_TEST_CLASS=Playback runs only the classes whose name contains it, so a test
  // function can be picked on the command line without the other classes rejecting it.
  const QByteArray only = qgetenv("MOE_GUI_TEST_CLASS");
  for (const auto& make : moe::ui::test::registry()) {
    auto t = make();
    if (!only.isEmpty() && !QByteArray(t->metaObject()->className()).contains(only)) continue;
    failures += QTest::qExec(t.get(), argc, argv);
  }
  return failures == 0 ? 0 : 1;
}
