#include "src/controllers/postgrescluster/switchover.h"

#include <gtest/gtest.h>

#include "api/postgrescluster.h"

namespace quorum::postgrescluster {
namespace {

PostgresCluster WithTrigger(const char* annotation, const char* handled) {
  PostgresCluster c;
  if (annotation != nullptr) {
    c.metadata.annotations[std::string(api::kSwitchoverTriggerAnnotation)] = annotation;
  }
  if (handled != nullptr) c.status.patroni.switchover = {.trigger = handled};
  return c;
}

TEST(NewSwitchoverTriggerTest, OnlyAnAnnotationNotYetHandledIsNew) {
  struct Case {
    const char* annotation;  // null: absent
    const char* handled;     // null: no switchover recorded
    const char* want;
  };
  const Case cases[] = {
      {nullptr, nullptr, ""}, {"1", nullptr, "1"}, {"1", "1", ""},
      {"2", "1", "2"},        {nullptr, "1", ""},  {"", "1", ""},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NewSwitchoverTrigger(WithTrigger(c.annotation, c.handled)), c.want)
        << "annotation=" << (c.annotation ? c.annotation : "(absent)")
        << " handled=" << (c.handled ? c.handled : "(none)");
  }
}

}  // namespace
}  // namespace quorum::postgrescluster
