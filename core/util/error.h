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
