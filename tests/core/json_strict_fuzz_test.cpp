// A fuzz target over the strict JSON reader: random documents of random nesting (up to twice
// the cap), width, string escapes (\u0000, surrogates, control characters), raw NUL and
// other bytes, then truncated or mutated. Every input must either parse or be refused with
// an InputError; nothing else may escape, and nothing may nest beyond the cap. Each input is
// at most kMaxInputBytes and the reader is linear, which bounds the time per input. A fixed
// seed and count keep it a few-second test in every CI run.

#include <gtest/gtest.h>

#include <string>

#include "core/util/error.h"
#include "core/util/json_strict.h"
#include "core/util/rng.h"

namespace moe {
namespace {

constexpr std::uint64_t kSeed = 0x5eed36;
constexpr int kInputs = 3000;
constexpr std::size_t kMaxInputBytes = 16 << 10;

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  std::string document() {
    std::string out;
    value(out, 0, 1 + rng_.below(2 * kMaxJsonDepth));
    mutate(out);
    return out;
  }

 private:
  void value(std::string& out, std::size_t depth, std::size_t maxDepth) {
    if (out.size() > kMaxInputBytes) return out.append("0"), void();
    const bool deeper = depth < maxDepth;
    switch (rng_.below(deeper ? 8 : 4)) {
      case 0:
        return number(out);
      case 1:
        return string(out);
      case 2:
        return out.append(rng_.below(2) ? "true" : "null"), void();
      case 3:
        return string(out);
      case 4:
      case 5:
        return container(out, '[', ']', depth, maxDepth);
      default:
        return container(out, '{', '}', depth, maxDepth);
    }
  }

  void container(std::string& out, char open, char close, std::size_t depth, std::size_t maxDepth) {
    out += open;
    // Mostly narrow (to reach depth), sometimes wide.
    const std::size_t width = rng_.below(8) == 0 ? rng_.below(40) : rng_.below(3);
    for (std::size_t i = 0; i < width; ++i) {
      if (i) out += ',';
      if (open == '{') {
        string(out);
        out += ':';
      }
      value(out, depth + 1, maxDepth);
    }
    out += close;
  }

  void number(std::string& out) {
    static const char* const kNumbers[] = {
        "0", "-1", "3.5", "1e308", "1e309", "-0", "1e-400", "18446744073709551616", "0.1e1"};
    out += kNumbers[rng_.below(std::size(kNumbers))];
  }

  void string(std::string& out) {
    static const char* const kPieces[] = {
        "a",       "key",        "\\u0000",  "\\n", "\\\"", "\\\\", "\\ud83d\\ude00",
        "\\ud800", "\\u001b[2J", "\xc3\xa9", "\\t", "\\/"};
    out += '"';
    const std::size_t n = rng_.below(5);
    for (std::size_t i = 0; i < n; ++i) {
      if (rng_.below(20) == 0)
        out += static_cast<char>(rng_.below(32));  // a raw control byte, NUL included
      else
        out += kPieces[rng_.below(std::size(kPieces))];
    }
    out += '"';
  }

  // Half the inputs stay well formed; the rest are cut short or have bytes flipped.
  void mutate(std::string& out) {
    if (out.empty()) return;
    switch (rng_.below(4)) {
      case 0:
        out.resize(rng_.below(out.size()));
        break;
      case 1:
        for (int i = 0; i < 3; ++i)
          out[rng_.below(out.size())] = static_cast<char>(rng_.below(256));
        break;
      default:
        break;
    }
  }

  Rng rng_;
};

std::size_t depthOf(const nlohmann::json& j) {
  std::size_t d = 0;
  if (j.is_structured())
    for (const auto& child : j) d = std::max(d, depthOf(child));
  return j.is_structured() ? d + 1 : 0;
}

bool hasNulKey(const nlohmann::json& j) {
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key().find('\0') != std::string::npos || hasNulKey(it.value())) return true;
  if (j.is_array())
    for (const auto& child : j)
      if (hasNulKey(child)) return true;
  return false;
}

TEST(JsonStrictFuzz, EveryInputParsesOrIsRefusedWithAnInputError) {
  Generator gen(kSeed);
  int parsed = 0, refused = 0;
  for (int i = 0; i < kInputs; ++i) {
    const std::string text = gen.document();
    try {
      const nlohmann::json j = parseJsonStrict(text, "fuzz.json");
      ++parsed;
      EXPECT_LE(depthOf(j), kMaxJsonDepth) << "input " << i;
      EXPECT_FALSE(hasNulKey(j)) << "input " << i;
      EXPECT_EQ(parseJsonStrict(j.dump(), "again.json"), j) << "input " << i;
    } catch (const InputError&) {
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "input " << i << " escaped as " << e.what();
    }
  }
  // Both outcomes are exercised, or the generator has drifted.
  EXPECT_GT(parsed, kInputs / 10);
  EXPECT_GT(refused, kInputs / 10);
}

}  // namespace
}  // namespace moe
