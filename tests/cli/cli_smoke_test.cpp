#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

TEST(MoeSim, UnknownSubcommandIsBadInput) {
  const std::string cmd = std::string(MOE_SIM_PATH) + " no-such-command >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
}
