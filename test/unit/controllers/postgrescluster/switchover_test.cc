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

TEST(NotAMemberTest, NamesTheFieldAndTheMembersForAPodTheSpecDoesNotAskFor) {
  PostgresCluster c;
  c.metadata.name = "pg";
  c.spec.instances = {{.name = "main", .replicas = 2}, {.name = "big", .replicas = 1}};
  EXPECT_EQ(NotAMember(c, ""), "") << "Patroni's choice";
  EXPECT_EQ(NotAMember(c, "pg-main-1"), "");
  EXPECT_EQ(NotAMember(c, "pg-big-0"), "");
  EXPECT_EQ(NotAMember(c, "pg-main-2"),
            "spec.patroni.switchover.targetInstance: pg-main-2 is not a member of this cluster "
            "(its members: pg-main-0, pg-main-1, pg-big-0); name one of them and annotate again");
  EXPECT_NE(NotAMember(c, "nobody-0"), "");
  EXPECT_NE(NotAMember(c, "pg-gone-0"), "") << "a set that is not in the spec";
}

TEST(SwitchoverBlockerTest, WaitsForACandidateThatRunsAsAReplica) {
  auto role = [](const char* r, const char* state) {
    return patroni::ObservedRole{.reachable = true, .role = r, .state = state};
  };
  Members m;
  m.primary = "pg-0";
  m.roles = {{"pg-0", role("primary", "running")}, {"pg-1", role("replica", "streaming")}};
  EXPECT_EQ(SwitchoverBlocker(m, "pg-1"), "");
  EXPECT_EQ(SwitchoverBlocker(m, ""), "");
  m.roles["pg-1"] = role("replica", "running");
  EXPECT_EQ(SwitchoverBlocker(m, "pg-1"), "");

  // The old primary a moment after a switchover: restarting, not yet a replica.
  m.roles["pg-1"] = role("replica", "starting");
  EXPECT_EQ(SwitchoverBlocker(m, "pg-1"),
            "waiting for pg-1 to run as a replica (now: replica, starting)");
  EXPECT_NE(SwitchoverBlocker(m, ""), "");
  m.roles["pg-1"] = role("primary", "stopped");
  EXPECT_NE(SwitchoverBlocker(m, "pg-1"), "");
  m.roles["pg-1"] = patroni::ObservedRole{};
  EXPECT_EQ(SwitchoverBlocker(m, "pg-1"),
            "waiting for pg-1 to run as a replica (now: not answering)");
  EXPECT_NE(SwitchoverBlocker(m, "pg-9"), "");

  // Without a target any ready replica will do.
  m.roles["pg-2"] = role("replica", "streaming");
  EXPECT_EQ(SwitchoverBlocker(m, ""), "");
}

}  // namespace
}  // namespace quorum::postgrescluster
