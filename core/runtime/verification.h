#pragma once
// One line of a run's verification: what was compared, whether it held, and the first
// mismatch (or what was compared, when it held).

#include <string>

namespace moe {

struct VerificationCheck {
  std::string name;
  bool ok = false;
  std::string detail;  // first mismatch, or what was compared
};

}  // namespace moe
