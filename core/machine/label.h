#pragma once
// The name of a GM buffer or word: its own text, or made on demand by the object that owns
// it. A large run holds hundreds of thousands of ring parts (155,392 rings at 256 ranks,
// each with a data area and a head and a tail word), and their names are read only in an
// error, a deadlock diagnosis or the causal log: stored, they were five strings per ring.

#include <cstdint>
#include <memory>
#include <string>

namespace moe {

// Makes the names of the parts it owns, numbered as it likes.
class LabelSource {
 public:
  virtual std::string label(std::int64_t part) const = 0;

 protected:
  ~LabelSource() = default;
};

class Label {
 public:
  Label() = default;
  Label(std::string text)  // NOLINT(google-explicit-constructor): a name is its text
      : text_(text.empty() ? nullptr : std::make_unique<std::string>(std::move(text))) {}
  Label(const char* text) : Label(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  Label(const LabelSource& source, std::int64_t part) : source_(&source), part_(part) {}

  std::string str() const {
    if (source_) return source_->label(part_);
    return text_ ? *text_ : std::string();
  }

 private:
  std::unique_ptr<std::string> text_;  // null for an empty or a made name
  const LabelSource* source_ = nullptr;
  std::int64_t part_ = 0;
};

}  // namespace moe
