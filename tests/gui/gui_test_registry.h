#pragma once
// The GUI tests are several QTest classes in one binary: each file registers its class
// here and main() runs them all, so ctest needs one executable and one offscreen platform.

#include <QObject>
#include <functional>
#include <memory>
#include <vector>

namespace moe::ui::test {

using Factory = std::function<std::unique_ptr<QObject>()>;
std::vector<Factory>& registry();

template <typename T>
struct Register {
  Register() {
    registry().push_back([] { return std::make_unique<T>(); });
  }
};

}  // namespace moe::ui::test
