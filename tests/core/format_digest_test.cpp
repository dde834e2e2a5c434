#include <gtest/gtest.h>

#include "core/util/format_digest.h"

namespace moe {
namespace {

// Every front end shows the digest through formatDigest, so two runs compare as text: the
// width is fixed and leading zeros stay.
TEST(FormatDigest, SixteenLowerCaseHexDigitsWithLeadingZeros) {
  EXPECT_EQ(formatDigest(0), "0000000000000000");
  EXPECT_EQ(formatDigest(0xabcull), "0000000000000abc");
  EXPECT_EQ(formatDigest(0x119f91c2b952f33aull), "119f91c2b952f33a");
  EXPECT_EQ(formatDigest(~0ull), "ffffffffffffffff");
}

}  // namespace
}  // namespace moe
