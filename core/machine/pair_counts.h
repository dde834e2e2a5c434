#pragma once
// A counter per pair of small non-negative ints, in one flat open-addressed table. The flow
// solver counts, for each resource, the active flows whose narrowest resource is another
// given one: a few updates per transfer start and end, so the table must not allocate per
// entry. A pair whose count drops to zero keeps its slot (the pairs that ever occur are
// the pairs of resources that share some transfer's path, a set the topology bounds).

#include <cstdint>
#include <utility>
#include <vector>

namespace moe {

class PairCounts {
 public:
  // The count of (a, b), made (at zero) if new.
  int& operator[](std::pair<int, int> key) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    return slotFor(pack(key)).count;
  }

 private:
  struct Slot {
    std::uint64_t key = kEmpty;
    int count = 0;
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static std::uint64_t pack(std::pair<int, int> key) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.first)) << 32) |
           static_cast<std::uint32_t>(key.second);
  }
  Slot& slotFor(std::uint64_t key) {
    const std::size_t mask = slots_.size() - 1;
    // Fibonacci hashing spreads the packed pairs, whose low and high halves are both small.
    std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (slots_[i].key != key && slots_[i].key != kEmpty) i = (i + 1) & mask;
    if (slots_[i].key == kEmpty) {
      slots_[i].key = key;
      ++used_;
    }
    return slots_[i];
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
    used_ = 0;
    for (const Slot& s : old)
      if (s.key != kEmpty) slotFor(s.key).count = s.count;
  }

  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace moe
