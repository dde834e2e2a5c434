#include <gtest/gtest.h>

#include "core/util/json_fields.h"

using moe::InputError;
namespace jf = moe::jsonf;

TEST(JsonFields, IntegerOutOfRangeNamesPathAndRange) {
  try {
    jf::integer(nlohmann::json(99), "model.topk", 1, 16);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "model.topk");
    EXPECT_NE(std::string(e.what()).find("[1, 16]"), std::string::npos);
  }
}

TEST(JsonFields, UnknownKeyIsRejectedWithItsPath) {
  auto j = nlohmann::json::parse(R"({"a": 1, "zzz": 2})");
  try {
    jf::rejectUnknownKeys(j, "cluster", {"a"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "cluster.zzz");
  }
}

TEST(JsonFields, RaggedMatrixIsRejected) {
  auto j = nlohmann::json::parse(R"([[1,2],[3]])");
  EXPECT_THROW(jf::intMatrix(j, "expert_ids", 10, 10, 0, 100), InputError);
}

TEST(JsonFields, WrongTypeIsRejected) {
  EXPECT_THROW(jf::integer(nlohmann::json("7"), "seed", 0, 10), InputError);
  EXPECT_THROW(jf::number(nlohmann::json(true), "alpha", 0, 10), InputError);
  EXPECT_THROW(jf::integer(nlohmann::json(1.5), "seed", 0, 10), InputError);
}

TEST(JsonFields, HugeFloatForAnIntegerIsRefusedNotCast) {
  EXPECT_THROW(jf::integer(nlohmann::json(1e30), "world_size", 2, 768), InputError);
  EXPECT_THROW(jf::integer(nlohmann::json(-1e300), "world_size", 2, 768), InputError);
  EXPECT_EQ(jf::integer(nlohmann::json(3.0), "k", 0, 10), 3);
}
