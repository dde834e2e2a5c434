// The FIFO of pooled nodes that holds a ring's record headers (core/protocol/record_queue.h).

#include "core/protocol/record_queue.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>
#include <utility>

using namespace moe;

// Against std::deque on random pushes and pops, draining it now and then (a ring's queue
// is empty most of the time): the same front, back and size after every step.
TEST(RecordQueue, MatchesADequeThroughDrainsAndRefills) {
  RecordQueue<int> queue;
  std::deque<std::pair<std::int64_t, int>> reference;
  std::mt19937 rng(7);
  for (int step = 0; step < 20000; ++step) {
    if (reference.empty() || rng() % 5 < 3) {
      queue.push_back(step * 64, -step);
      reference.emplace_back(step * 64, -step);
    } else {
      const auto e = queue.pop_front();
      ASSERT_EQ(e.offset, reference.front().first);
      ASSERT_EQ(e.meta, reference.front().second);
      reference.pop_front();
    }
    ASSERT_EQ(queue.size(), static_cast<std::int64_t>(reference.size()));
    ASSERT_EQ(queue.empty(), reference.empty());
    if (!reference.empty()) {
      ASSERT_EQ(queue.front().offset, reference.front().first);
      ASSERT_EQ(queue.back().offset, reference.back().first);
      ASSERT_EQ(queue.back().meta, reference.back().second);
    }
  }
}

// A queue destroyed while it still holds records gives their nodes back (AddressSanitizer,
// which bypasses the pool, reports a leak otherwise).
TEST(RecordQueue, DestroyedWithRecordsInItFreesThem) {
  auto queue = std::make_unique<RecordQueue<std::int64_t>>();
  for (int i = 0; i < 100; ++i) queue->push_back(i, i);
  queue->pop_front();
  EXPECT_EQ(queue->size(), 99);
  queue.reset();  // the leak check is AddressSanitizer's, at exit
}
