#include "src/controllers/common/kube_fields.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quorum::controllers {
namespace {

using Json = nlohmann::json;

TEST(KubeFieldsTest, BeingDeletedOnlyWhenADeletionTimestampIsSet) {
  struct Case {
    const char* name;
    Json object;
    bool deleting;
  };
  const Case cases[] = {
      {"deleting", {{"metadata", {{"deletionTimestamp", "2026-01-01T00:00:00Z"}}}}, true},
      {"live", {{"metadata", {{"name", "a"}}}}, false},
      {"null timestamp", {{"metadata", {{"deletionTimestamp", nullptr}}}}, false},
      {"no metadata", Json::object(), false},
      {"not an object", Json::array(), false},
  };
  for (const Case& c : cases) {
    const Json before = c.object;
    EXPECT_EQ(BeingDeleted(c.object), c.deleting) << c.name;
    EXPECT_EQ(c.object, before) << c.name << ": reading inserts nothing";
  }
}

}  // namespace
}  // namespace quorum::controllers
