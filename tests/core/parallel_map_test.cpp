#include "core/util/parallel_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>

namespace moe {
namespace {

TEST(ParallelMap, ResultsComeBackInIndexOrderWhateverTheThreadCount) {
  for (unsigned threads : {1u, 2u, 7u}) {
    ParallelMapOptions options;
    options.threads = threads;
    std::size_t lastDone = 0;
    options.onDone = [&](std::size_t done, std::size_t total) {
      EXPECT_EQ(done, lastDone + 1);
      EXPECT_EQ(total, 50u);
      lastDone = done;
    };
    auto results = parallelMap<std::string>(
        50, [](std::size_t i) { return std::to_string(i * i); }, options);
    ASSERT_EQ(results.size(), 50u);
    for (std::size_t i = 0; i < results.size(); ++i) {
      ASSERT_TRUE(results[i].has_value());
      EXPECT_EQ(*results[i], std::to_string(i * i));
    }
    EXPECT_EQ(lastDone, 50u);
  }
}

TEST(ParallelMap, CancelledJobsStayEmpty) {
  std::atomic<bool> cancel{false};
  ParallelMapOptions options;
  options.threads = 1;
  options.cancel = &cancel;
  auto results = parallelMap<int>(
      10,
      [&](std::size_t i) {
        if (i == 3) cancel = true;
        return static_cast<int>(i);
      },
      options);
  for (std::size_t i = 0; i <= 3; ++i) EXPECT_TRUE(results[i].has_value());
  for (std::size_t i = 4; i < 10; ++i) EXPECT_FALSE(results[i].has_value());
}

TEST(ParallelMap, TheLowestFailingIndexIsRethrownAfterAllJobsStop) {
  std::atomic<int> ran{0};
  ParallelMapOptions options;
  options.threads = 3;
  try {
    parallelMap<int>(
        20,
        [&](std::size_t i) -> int {
          ++ran;
          if (i == 5 || i == 11) throw std::runtime_error("job " + std::to_string(i));
          return 0;
        },
        options);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "job 5");
  }
  EXPECT_EQ(ran.load(), 20);
}

TEST(ParallelMap, ThreadCountIsClampedToTheJobs) {
  EXPECT_EQ(resolveThreadCount(8, 3), 3u);
  EXPECT_EQ(resolveThreadCount(2, 0), 1u);
  EXPECT_GE(resolveThreadCount(0, 100), 1u);
}

}  // namespace
}  // namespace moe
