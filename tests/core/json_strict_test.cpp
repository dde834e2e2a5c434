// The strict JSON reader on hostile nesting and keys: depth capped with the path named,
// NUL in keys refused (a key cut at its NUL would be reported as another field).

#include "core/util/json_strict.h"

#include <gtest/gtest.h>

#include <string>

#include "core/util/error.h"

namespace moe {
namespace {

// `depth` objects nested under the key "a": {"a":{"a":...1...}}.
std::string nestedObjects(std::size_t depth) {
  std::string s;
  for (std::size_t i = 0; i < depth; ++i) s += "{\"a\":";
  s += "1";
  s.append(depth, '}');
  return s;
}

std::string nestedArrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonStrict, NestingUpToTheCapIsRead) {
  EXPECT_NO_THROW(parseJsonStrict(nestedObjects(kMaxJsonDepth), "f.json"));
  EXPECT_NO_THROW(parseJsonStrict(nestedArrays(kMaxJsonDepth), "f.json"));
}

TEST(JsonStrict, NestingOneBeyondTheCapIsRefusedNamingDepthAndPath) {
  try {
    parseJsonStrict(nestedObjects(kMaxJsonDepth + 1), "f.json");
    FAIL() << "depth 65 was accepted";
  } catch (const InputError& e) {
    std::string path;
    for (std::size_t i = 0; i < kMaxJsonDepth; ++i) path += (i ? ".a" : "a");
    EXPECT_EQ(e.path(), path);
    EXPECT_NE(e.rule().find("nested 65 levels deep in f.json"), std::string::npos) << e.rule();
    EXPECT_NE(e.rule().find("at most 64 levels"), std::string::npos) << e.rule();
  }
}

TEST(JsonStrict, HundredThousandLevelsAreRefusedAtTheCap) {
  // Refused when level 65 opens: the rest of the 600 KB is never looked at.
  for (const std::string& text : {nestedObjects(100000), nestedArrays(100000)})
    EXPECT_THROW(parseJsonStrict(text, "deep.json"), InputError);
}

TEST(JsonStrict, KeyWithNulIsRefusedWithItsWholeName) {
  try {
    parseJsonStrict("{\"hardware\": {\"nic\\u0000gbps\": 1}}", "s.json");
    FAIL() << "a key with NUL was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), std::string("hardware.nic\0gbps", 17));
    EXPECT_NE(e.rule().find("NUL"), std::string::npos) << e.rule();
  }
}

TEST(JsonStrict, DuplicateKeyDeepInsideIsNamedByItsPath) {
  EXPECT_THROW(
      try {
        parseJsonStrict("{\"a\": [{\"b\": 1, \"b\": 2}]}", "f.json");
      } catch (const InputError& e) {
        EXPECT_EQ(e.path(), "a[].b");
        throw;
      },
      InputError);
}

}  // namespace
}  // namespace moe
