// The waiters of a GM word (core/machine/word_waiters.h) and the 16-B names
// (core/machine/label.h) that every ring part carries.

#include "core/machine/word_waiters.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "core/machine/ai_core.h"
#include "core/machine/label.h"

using namespace moe;

namespace {

// Stand-in cores: the list only stores and compares the pointers.
AiCore* fakeCore(int i) {
  return reinterpret_cast<AiCore*>(static_cast<std::uintptr_t>(64 * (i + 1)));
}

std::vector<AiCore*> cores(const WordWaiters& w) {
  std::vector<AiCore*> out;
  w.forEach([&](const WordWaiters::Waiter& x) { out.push_back(x.core); });
  return out;
}

}  // namespace

// Against a vector with std::erase_if on random adds and removals (a core that stops
// waiting leaves every word it waited on): the same cores in the same order after every
// step. The order is the wake order, which the event order depends on.
TEST(WordWaiters, KeepTheOrderOfAVectorThroughRandomAddsAndRemovals) {
  WordWaiters list;
  std::vector<AiCore*> reference;
  std::mt19937 rng(11);
  for (int step = 0; step < 20000; ++step) {
    AiCore* core = fakeCore(static_cast<int>(rng() % 6));
    if (rng() % 3 != 0) {
      list.push_back(core, std::coroutine_handle<>());
      reference.push_back(core);
    } else {
      list.eraseCore(core);
      std::erase(reference, core);
    }
    ASSERT_EQ(cores(list), reference) << "step " << step;
    ASSERT_EQ(list.empty(), reference.empty());
    if (rng() % 500 == 0) {  // a word's change takes every waiter at once
      const WordWaiters taken = std::move(list);
      EXPECT_TRUE(list.empty());
      EXPECT_EQ(cores(taken), reference);
      reference.clear();
    }
  }
}

TEST(WordWaiters, RemovingTheOnlyOrTheOldestOrTheNewestWaiterKeepsTheRestInOrder) {
  WordWaiters list;
  list.push_back(fakeCore(0), {});
  list.eraseCore(fakeCore(0));
  EXPECT_TRUE(list.empty());
  for (int i = 0; i < 3; ++i) list.push_back(fakeCore(i), {});
  list.eraseCore(fakeCore(2));  // the newest
  list.push_back(fakeCore(3), {});
  EXPECT_EQ(cores(list), (std::vector<AiCore*>{fakeCore(0), fakeCore(1), fakeCore(3)}));
  list.eraseCore(fakeCore(0));  // the oldest
  EXPECT_EQ(cores(list), (std::vector<AiCore*>{fakeCore(1), fakeCore(3)}));
  list.eraseCore(fakeCore(9));  // not waiting: nothing changes
  EXPECT_EQ(cores(list), (std::vector<AiCore*>{fakeCore(1), fakeCore(3)}));
}

namespace {
struct PartNames final : LabelSource {
  std::string label(std::int64_t part) const override { return "part" + std::to_string(part); }
};
}  // namespace

// A label is two words, and moving one moves its text or its source and part.
TEST(Label, TwoWordsThatMoveTheirTextOrTheirSource) {
  static_assert(sizeof(Label) == 16);
  static_assert(sizeof(Word) <= 56, "a ring holds two words; keep them small");
  const PartNames names;
  Label text("card3.flag");
  Label made(names, 7);
  Label empty;
  EXPECT_EQ(text.str(), "card3.flag");
  EXPECT_EQ(made.str(), "part7");
  EXPECT_EQ(empty.str(), "");

  Label moved(std::move(text));
  EXPECT_EQ(moved.str(), "card3.flag");
  EXPECT_EQ(text.str(), "");  // NOLINT(bugprone-use-after-move): a moved-from label is empty
  moved = std::move(made);    // the text is freed (AddressSanitizer checks the leak)
  EXPECT_EQ(moved.str(), "part7");
  moved = Label(std::string("again"));
  EXPECT_EQ(moved.str(), "again");
  EXPECT_EQ(Label(std::string()).str(), "");
}
