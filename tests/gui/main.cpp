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
  for (const auto& make : moe::ui::test::registry()) {
    auto t = make();
    failures += QTest::qExec(t.get(), argc, argv);
  }
  return failures == 0 ? 0 : 1;
}
