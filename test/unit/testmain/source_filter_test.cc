#include "test/testmain/source_filter.h"

#include <gtest/gtest.h>

namespace quorum::testmain {
namespace {

TEST(MatchesGtestFilterTest, FollowsGoogleTestsPatternRules) {
  struct Case {
    const char* filter;
    const char* name;
    bool matches;
  } cases[] = {
      {"*", "A.b", true},
      {"", "A.b", true},
      {"A.*", "A.b", true},
      {"A.*", "AB.b", false},
      {"B.*:A.*", "A.b", true},
      {"A.?", "A.b", true},
      {"A.?", "A.bc", false},
      {"*Volume*", "E2E.AVolumeRepository", true},
      {"-A.b", "A.b", false},
      {"-A.b", "A.c", true},
      {"A.*-A.b:A.c", "A.c", false},
      {"A.*-A.b:A.c", "A.d", true},
      {"*/S.*", "P/S.t/0", true},
      {"a*b*c", "axxbyyc", true},
      {"a*b*c", "axxbyy", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MatchesGtestFilter(c.filter, c.name), c.matches) << c.filter << " vs " << c.name;
  }
}

const std::vector<TestCase> kProgram = {
    {"CronTest.Parses", "/src/test/unit/api/cron_test.cc"},
    {"CronTest.Refuses", "/src/test/unit/api/cron_test.cc"},
    {"Prefix/ParamTest.Works/0", "../../test/unit/api/cron_test.cc"},
    {"DecodeTest.Reads", "/src/test/unit/api/decode_test.cc"},
    {"OtherTest.X", "/src/test/unit/api/my_cron_test.cc"},
};

TEST(FilterForSourceTest, SelectsExactlyTheTestsOfOneFile) {
  EXPECT_EQ(FilterForSource(kProgram, "test/unit/api/cron_test.cc", "*"),
            "CronTest.Parses:CronTest.Refuses:Prefix/ParamTest.Works/0");
  EXPECT_EQ(FilterForSource(kProgram, "test/unit/api/decode_test.cc", ""), "DecodeTest.Reads");
}

TEST(FilterForSourceTest, MatchesWholePathComponentsOnly) {
  EXPECT_EQ(FilterForSource(kProgram, "api/my_cron_test.cc", "*"), "OtherTest.X");
  EXPECT_EQ(FilterForSource(kProgram, "y_cron_test.cc", "*"), std::nullopt);
}

TEST(FilterForSourceTest, IntersectsWithTheUsersFilter) {
  EXPECT_EQ(FilterForSource(kProgram, "test/unit/api/cron_test.cc", "*Refuses*"),
            "CronTest.Refuses");
  EXPECT_EQ(FilterForSource(kProgram, "test/unit/api/cron_test.cc", "-CronTest.*"),
            "Prefix/ParamTest.Works/0");
}

TEST(FilterForSourceTest, RunsNothingWhenTheUsersFilterLeavesNone) {
  EXPECT_EQ(FilterForSource(kProgram, "test/unit/api/decode_test.cc", "CronTest.*"), "-*");
}

TEST(FilterForSourceTest, AFileWithoutTestsIsAnError) {
  EXPECT_EQ(FilterForSource(kProgram, "test/unit/api/gone_test.cc", "*"), std::nullopt);
}

}  // namespace
}  // namespace quorum::testmain
