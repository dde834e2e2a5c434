#pragma once
// Errors that cross the core's API. InputError is "bad input": the CLI maps it to exit 2.
// Its message always names the field path (e.g. "routing.alpha") and the rule it broke.

#include <stdexcept>
#include <string>

namespace moe {

class InputError : public std::runtime_error {
 public:
  InputError(std::string path, std::string rule)
      : std::runtime_error(path + ": " + rule), path_(std::move(path)), rule_(std::move(rule)) {}
  const std::string& path() const { return path_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string path_;
  std::string rule_;
};

// Throws InputError(path, rule) unless cond holds. Keeps validation code one line per rule.
inline void require(bool cond, const std::string& path, const std::string& rule) {
  if (!cond) throw InputError(path, rule);
}

}  // namespace moe

namespace moe {

// What is being allocated right now, for the "out of memory: <what>" message the CLI
// prints when std::bad_alloc reaches it (exit 2: the input asked for more than the machine
// has). A scope names its phase; the innermost one is reported.
class AllocationScope {
 public:
  explicit AllocationScope(const char* what) : previous_(current()) { current() = what; }
  ~AllocationScope() { current() = previous_; }
  AllocationScope(const AllocationScope&) = delete;
  AllocationScope& operator=(const AllocationScope&) = delete;
  // The innermost phase, or nullptr outside every scope.
  static const char* innermost() { return current(); }

 private:
  static const char*& current() {
    thread_local const char* what = nullptr;
    return what;
  }
  const char* previous_;
};

}  // namespace moe
