// A staged directory replaces its target whole or not at all, and never leaves its staging
// sibling behind (core/util/staged_directory.h).

#include "core/util/staged_directory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

namespace fs = std::filesystem;

namespace {

class StagedDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("moe_staged_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The names in dir_ (the target and anything left beside it).
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }
  static void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }

  fs::path dir_;
};

TEST_F(StagedDirectoryTest, CommitCreatesAMissingTarget) {
  const fs::path target = dir_ / "out";
  {
    moe::StagedDirectory staged(target.string(), "--out");
    write(fs::path(staged.path()) / "a" / "x.npy", "new");
    EXPECT_FALSE(fs::exists(target)) << "nothing is visible before the commit";
    staged.commit();
  }
  EXPECT_TRUE(fs::exists(target / "a" / "x.npy"));
  EXPECT_EQ(entries(), std::set<std::string>{"out"});
}

TEST_F(StagedDirectoryTest, CommitReplacesAnExistingTargetWhole) {
  const fs::path target = dir_ / "out";
  write(target / "old-only.npy", "old");
  write(target / "shared.npy", "old");
  {
    moe::StagedDirectory staged(target.string(), "--out");
    write(fs::path(staged.path()) / "shared.npy", "new");
    staged.commit();
  }
  EXPECT_FALSE(fs::exists(target / "old-only.npy"));
  std::ifstream in(target / "shared.npy");
  std::string text;
  in >> text;
  EXPECT_EQ(text, "new");
  EXPECT_EQ(entries(), std::set<std::string>{"out"}) << "the old contents are removed";
}

TEST_F(StagedDirectoryTest, AWriterThatFailsLeavesTheTargetAndNoStagingDirectory) {
  const fs::path target = dir_ / "out";
  write(target / "old.npy", "old");
  try {
    moe::StagedDirectory staged(target.string(), "--out");
    write(fs::path(staged.path()) / "half.npy", "half");
    throw std::runtime_error("the writer failed half way");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(fs::exists(target / "old.npy"));
  EXPECT_FALSE(fs::exists(target / "half.npy"));
  EXPECT_EQ(entries(), std::set<std::string>{"out"});
}

TEST_F(StagedDirectoryTest, ATrailingSlashNamesTheSameTarget) {
  {
    moe::StagedDirectory staged((dir_ / "out").string() + "/", "--out");
    write(fs::path(staged.path()) / "x.npy", "new");
    staged.commit();
  }
  EXPECT_TRUE(fs::exists(dir_ / "out" / "x.npy"));
  EXPECT_EQ(entries(), std::set<std::string>{"out"});
}

}  // namespace
