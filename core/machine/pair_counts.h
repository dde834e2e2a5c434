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
    if (4 * (used_ + 1) > 3 * slots_.size()) grow();  // at most three quarters full
    return slotFor(static_cast<std::uint32_t>(key.first), static_cast<std::uint32_t>(key.second))
        .count;
  }

 private:
  struct Slot {  // 12 bytes: a 256-rank run holds some 150,000 pairs
    std::uint32_t a = kEmpty;
    std::uint32_t b = 0;
    int count = 0;
  };
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  Slot& slotFor(std::uint32_t a, std::uint32_t b) {
    const std::size_t mask = slots_.size() - 1;
    // Fibonacci hashing spreads the pairs, whose halves are both small numbers. The slot is
    // the product's top bits, the only ones both halves reach: bits below 32 depend on b
    // alone, and taking them made every pair with one narrowest resource collide.
    const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | b;
    std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
    while (slots_[i].a != kEmpty && (slots_[i].a != a || slots_[i].b != b)) i = (i + 1) & mask;
    if (slots_[i].a == kEmpty) {
      slots_[i].a = a;
      slots_[i].b = b;
      ++used_;
    }
    return slots_[i];
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    bits_ = old.empty() ? 10 : bits_ + 1;
    slots_.assign(std::size_t{1} << bits_, Slot{});
    used_ = 0;
    for (const Slot& s : old)
      if (s.a != kEmpty) slotFor(s.a, s.b).count = s.count;
  }

  std::vector<Slot> slots_;
  std::size_t used_ = 0;
  int bits_ = 0;  // slots_.size() is 2^bits_
};

}  // namespace moe
