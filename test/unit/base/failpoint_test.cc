#include "src/base/failpoint.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace quorum {
namespace {

TEST(ParseFailpointsTest, CommaListWithSpaces) {
  EXPECT_TRUE(ParseFailpoints("").empty());
  EXPECT_EQ(ParseFailpoints("a/b, c/d ,,"), (std::set<std::string>{"a/b", "c/d"}));
}

TEST(FailpointDeathTest, AnArmedFailpointEndsTheProcessAndOthersDoNot) {
  EXPECT_EXIT(
      {
        setenv("QUORUM_FAILPOINTS", "etcdcluster/after-AddLearner", 1);
        Failpoint("etcdcluster/before-AddLearner");
        Failpoint("etcdcluster/after-AddLearner");
        std::exit(0);
      },
      testing::ExitedWithCode(kFailpointExitCode), "failpoint etcdcluster/after-AddLearner");
}

}  // namespace
}  // namespace quorum
