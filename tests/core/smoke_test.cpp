#include <gtest/gtest.h>

#include "core/util/bf16.h"
#include "core/util/embedded_resources.h"

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(moe::floatToBf16(1.0f), 0x3f80);
  // 1 + 2^-8 is exactly halfway between two bf16 values: ties go to the even one (1.0).
  EXPECT_EQ(moe::floatToBf16(1.00390625f), 0x3f80);
  // 1 + 3*2^-8 is halfway too; the even neighbour is above.
  EXPECT_EQ(moe::floatToBf16(1.01171875f), 0x3f82);
  EXPECT_FLOAT_EQ(moe::bf16ToFloat(0x3f80), 1.0f);
}

TEST(EmbeddedResources, HoldTheBuiltinProfilesAndDefaultScenario) {
  EXPECT_TRUE(moe::embeddedFile("profiles/ascend-910b3.json").has_value());
  EXPECT_TRUE(moe::embeddedFile("profiles/ascend-910b2.json").has_value());
  EXPECT_TRUE(moe::embeddedFile("profiles/atlas-a3-die.json").has_value());
  EXPECT_TRUE(moe::embeddedFile("scenarios/default.json").has_value());
}
