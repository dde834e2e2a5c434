// The hooks an op runs when it lands (core/machine/land_hooks.h): small hooks are held in
// the node, larger ones on the heap, and both run in order and free what they capture.

#include "core/machine/land_hooks.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace moe;

TEST(LandHooks, SmallAndLargeHooksRunInTheOrderAdded) {
  std::vector<int> ran;
  LandHooks hooks;
  hooks.push_back([&ran] { ran.push_back(1); });
  std::array<std::int64_t, 8> big{};  // 64 B of captures: kept on the heap
  big[7] = 2;
  hooks.push_back([&ran, big] { ran.push_back(static_cast<int>(big[7])); });
  const std::int64_t b = 3, e = 4;  // a ring's landing check: this, begin, end (24 B)
  hooks.push_back([&ran, b, e] { ran.push_back(static_cast<int>(b * 10 + e)); });
  hooks.run();
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 34}));
}

// What a hook captures is released when the list goes, whether it ran or not, and a moved
// list hands its hooks over.
TEST(LandHooks, CapturesAreReleasedInPlaceAndOnTheHeap) {
  auto token = std::make_shared<int>(0);
  {
    LandHooks hooks;
    hooks.push_back([token] { ++*token; });                                // in place
    hooks.push_back([token, pad = std::array<char, 64>{}] { ++*token; });  // on the heap
    EXPECT_EQ(token.use_count(), 3);
    LandHooks moved = std::move(hooks);
    hooks.run();  // NOLINT(bugprone-use-after-move): a moved-from list is empty
    EXPECT_EQ(*token, 0);
    moved.run();
    EXPECT_EQ(*token, 2);
    EXPECT_EQ(token.use_count(), 3);
  }
  EXPECT_EQ(token.use_count(), 1);  // AddressSanitizer also checks for leaks here
}

namespace {
struct ThrowsWhenCopied {
  ThrowsWhenCopied() = default;
  ThrowsWhenCopied(const ThrowsWhenCopied&) { throw std::runtime_error("no copy"); }
  void operator()() const {}
};
}  // namespace

// A hook whose copy throws leaves the list as it was (no half-made node).
TEST(LandHooks, AHookThatThrowsWhenCopiedAddsNothing) {
  int ran = 0;
  LandHooks hooks;
  hooks.push_back([&ran] { ++ran; });
  const ThrowsWhenCopied bad;
  EXPECT_THROW(hooks.push_back(bad), std::runtime_error);
  hooks.run();
  EXPECT_EQ(ran, 1);
}
