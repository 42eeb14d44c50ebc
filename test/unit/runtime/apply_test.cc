#include "src/runtime/apply.h"

#include <gtest/gtest.h>

namespace quorum::runtime {
namespace {

TEST(IsSubsetTest, ServerDefaultsAndOtherFieldsDoNotCountAsChanges) {
  Json desired = {{"spec", {{"replicas", 3}, {"ports", Json::array({{{"port", 2379}}})}}}};
  Json actual = {{"spec",
                  {{"replicas", 3},
                   {"revisionHistoryLimit", 10},
                   {"ports", Json::array({{{"port", 2379}, {"protocol", "TCP"}}})}}},
                 {"status", {{"replicas", 1}}}};
  EXPECT_TRUE(IsSubset(desired, actual));
}

TEST(IsSubsetTest, ChangedValuesMissingKeysAndListLengthsAreChanges) {
  Json actual = {{"a", 1}, {"l", Json::array({1, 2})}};
  EXPECT_FALSE(IsSubset({{"a", 2}}, actual));
  EXPECT_FALSE(IsSubset({{"b", 1}}, actual));
  EXPECT_FALSE(IsSubset({{"l", Json::array({1})}}, actual));
  EXPECT_FALSE(IsSubset({{"l", Json::array({1, 2, 3})}}, actual));
  EXPECT_TRUE(IsSubset({{"a", 1.0}}, actual)) << "1 and 1.0 are the same number";
  EXPECT_FALSE(IsSubset({{"a", "1"}}, actual));
}

}  // namespace
}  // namespace quorum::runtime
