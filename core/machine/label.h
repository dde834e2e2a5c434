#pragma once
// The name of a GM buffer or word: its own text, or made on demand by the object that owns
// it. A large run holds hundreds of thousands of ring parts (155,392 rings at 256 ranks,
// each with a data area and a head and a tail word), and their names are read only in an
// error, a deadlock diagnosis or the causal log: stored, they were five strings per ring.

#include <cstdint>
#include <string>
#include <utility>

namespace moe {

// Makes the names of the parts it owns, numbered as it likes.
class LabelSource {
 public:
  virtual std::string label(std::int64_t part) const = 0;

 protected:
  ~LabelSource() = default;
};

// 16 B: a source and a part number, or (with no source) an owned text or nothing. Every
// ring's name and its head and tail words carry one, so it is kept to two words.
class Label {
 public:
  Label() = default;
  Label(std::string text)  // NOLINT(google-explicit-constructor): a name is its text
      : text_(text.empty() ? nullptr : new std::string(std::move(text))) {}
  Label(const char* text) : Label(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  Label(const LabelSource& source, std::int64_t part) : source_(&source), part_(part) {}
  Label(Label&& other) noexcept { take(other); }
  Label& operator=(Label&& other) noexcept {
    if (this != &other) {
      clear();
      take(other);
    }
    return *this;
  }
  Label(const Label&) = delete;
  Label& operator=(const Label&) = delete;
  ~Label() { clear(); }

  std::string str() const {
    if (source_) return source_->label(part_);
    return text_ ? *text_ : std::string();
  }

 private:
  void clear() noexcept {
    if (!source_) delete text_;
    source_ = nullptr;
    text_ = nullptr;
  }
  // Moves `other`'s name here (this one is empty) and leaves `other` empty.
  void take(Label& other) noexcept {
    source_ = std::exchange(other.source_, nullptr);
    if (source_)
      part_ = other.part_;
    else
      text_ = other.text_;
    other.text_ = nullptr;
  }
  const LabelSource* source_ = nullptr;
  union {
    std::string* text_ = nullptr;  // without a source: owned, null for an empty name
    std::int64_t part_;            // with a source
  };
};

}  // namespace moe
