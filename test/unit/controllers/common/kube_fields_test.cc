#include "src/controllers/common/kube_fields.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quorum::controllers {
namespace {

using Json = nlohmann::json;

nlohmann::json Pod(const char* ready, const char* since, nlohmann::json state) {
  return {{"status",
           {{"conditions", {{{"type", "Ready"}, {"status", ready}, {"lastTransitionTime", since}}}},
            {"containerStatuses", {{{"name", "postgres"}, {"state", std::move(state)}}}}}}};
}

TEST(KubeFieldsTest, PodRestartingUnreadyTellsACrashFromAFailingProbe) {
  const nlohmann::json running_before = {{"running", {{"startedAt", "2026-12-07T09:00:00Z"}}}};
  const nlohmann::json running_since = {{"running", {{"startedAt", "2026-12-07T09:05:01Z"}}}};
  const nlohmann::json waiting = {{"waiting", {{"reason", "CrashLoopBackOff"}}}};
  const nlohmann::json terminated = {{"terminated", {{"exitCode", 137}}}};
  const char* since = "2026-12-07T09:05:01Z";
  EXPECT_FALSE(PodRestartingUnready(Pod("True", since, running_since))) << "Ready";
  EXPECT_FALSE(PodRestartingUnready(Pod("False", since, running_before))) << "a failing probe";
  EXPECT_TRUE(PodRestartingUnready(Pod("False", since, running_since))) << "restarted since";
  EXPECT_TRUE(PodRestartingUnready(Pod("False", since, waiting)));
  EXPECT_TRUE(PodRestartingUnready(Pod("False", since, terminated)));
  EXPECT_FALSE(PodRestartingUnready(nlohmann::json::object())) << "no status yet";
}

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
