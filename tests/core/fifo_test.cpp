// The circular FIFO behind a core's pipes (core/util/fifo.h).

#include "core/util/fifo.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>

using namespace moe;

// Against std::deque on random pushes and pops, so the buffer wraps around and grows while
// wrapped: the same front, back and size after every step.
TEST(Fifo, MatchesADequeThroughWrapAroundAndGrowth) {
  Fifo<int> fifo;
  std::deque<int> reference;
  std::mt19937 rng(3);
  for (int step = 0; step < 20000; ++step) {
    if (reference.empty() || rng() % 5 < 3) {
      fifo.push_back(step);
      reference.push_back(step);
    } else {
      fifo.pop_front();
      reference.pop_front();
    }
    ASSERT_EQ(fifo.size(), reference.size());
    ASSERT_EQ(fifo.empty(), reference.empty());
    if (!reference.empty()) {
      ASSERT_EQ(fifo.front(), reference.front());
      ASSERT_EQ(fifo.back(), reference.back());
    }
  }
}

// A popped element is released at once (an op record must not outlive its pipe slot).
TEST(Fifo, PopReleasesTheElement) {
  Fifo<std::shared_ptr<int>> fifo;
  auto item = std::make_shared<int>(7);
  fifo.push_back(item);
  EXPECT_EQ(item.use_count(), 2);
  fifo.pop_front();
  EXPECT_EQ(item.use_count(), 1);
  EXPECT_TRUE(fifo.empty());
}
