#pragma once
// The names of a family of rings (every card pair, lane or channel of one operator), made
// from up to four small indices packed into each ring's Label: the text is made only when
// something reads it (the inspector, a trace, a diagnosis), not stored once per ring.

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/machine/label.h"

namespace moe {

class IndexedLabels final : public LabelSource {
 public:
  using Indices = std::array<int, 4>;
  using Format = std::function<std::string(const Indices&)>;
  explicit IndexedLabels(Format format) : format_(std::move(format)) {}
  IndexedLabels(const IndexedLabels&) = delete;
  IndexedLabels& operator=(const IndexedLabels&) = delete;

  // The name of the family's member (a, b, c, d); each index is in [0, 32767] (ranks are
  // at most 768).
  Label operator()(int a, int b = 0, int c = 0, int d = 0) const {
    std::int64_t part = 0;
    for (int i : {a, b, c, d}) {
      if (i < 0 || i > kMaxIndex) throw std::logic_error("ring name index out of range");
      part = part << kBits | i;
    }
    return Label(*this, part);
  }
  std::string label(std::int64_t part) const override {
    Indices at{};
    for (int k = 3; k >= 0; --k, part >>= kBits) at[k] = static_cast<int>(part & kMaxIndex);
    return format_(at);
  }

 private:
  static constexpr int kBits = 15;  // four of them fit a non-negative int64
  static constexpr int kMaxIndex = (1 << kBits) - 1;
  Format format_;
};

}  // namespace moe
