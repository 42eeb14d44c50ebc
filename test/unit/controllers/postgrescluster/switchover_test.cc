#include "src/controllers/postgrescluster/switchover.h"

#include <gtest/gtest.h>

#include "api/postgrescluster.h"
#include "src/controllers/postgrescluster/switchover_plan.h"

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
  // A trigger recorded as still waiting (switchover_plan.h) is not handled yet.
  PostgresCluster waiting = WithTrigger("1", "1");
  waiting.status.patroni.switchover->result = "Waiting";
  EXPECT_EQ(NewSwitchoverTrigger(waiting), "1");
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

// Issue 33: a user's switchover goes only to a member the primary's WAL
// streams to (the evidence a member removal takes); one that does not stream
// is answered — Waiting, then Failed past kSwitchoverStreamWait, never
// attempted — and only a switchover Patroni is asked for holds other work.
TEST(PlanSwitchoverTest, ASwitchoverGoesOnlyToAStreamingMemberAndIsAlwaysAnswered) {
  const absl::Time now = absl::FromUnixSeconds(1796379300);  // 2026-12-04T10:15:00Z
  const std::string at = "2026-12-04T10:15:00Z";
  auto role = [](const char* r, const char* state) {
    return patroni::ObservedRole{.reachable = true, .role = r, .state = state};
  };
  Members healthy;
  healthy.primary = "pg-main-0";
  healthy.roles = {{"pg-main-0", role("primary", "running")},
                   {"pg-main-1", role("replica", "streaming")},
                   {"pg-main-2", role("replica", "running")}};
  healthy.roles["pg-main-0"].streaming_to = {"pg-main-1"};
  for (const char* pod : {"pg-main-0", "pg-main-1", "pg-main-2"}) {
    healthy.urls[pod] = patroni::Endpoint{};
  }
  Members none_streams = healthy;
  none_streams.roles["pg-main-0"].streaming_to = {};
  Members down = healthy;
  down.roles["pg-main-2"] = patroni::ObservedRole{};
  down.urls.erase("pg-main-2");
  Members no_primary = healthy;
  no_primary.primary = "";

  struct Case {
    const char* name;
    std::string target;
    const Members* members;
    std::optional<api::PostgresSwitchoverStatus> last;  // status.patroni.switchover
    SwitchoverPlan::Kind kind;
    std::string result, message, time;
    std::optional<absl::Duration> recheck;
    std::string type = "Switchover";
    bool enabled = true;
  };
  const std::string waiting_msg =
      "waiting up to 2m for pg-main-2 to stream from the primary pg-main-0 (now: replica, "
      "running); a switchover to a member that does not stream could lose acknowledged writes";
  const Case cases[] = {
      {"the target streams", "pg-main-1", &healthy, std::nullopt, SwitchoverPlan::kAct, "", "", at},
      {"Patroni's choice, a replica streams", "", &healthy, std::nullopt, SwitchoverPlan::kAct, "",
       "", at},
      {"the target is the primary", "pg-main-0", &healthy, std::nullopt, SwitchoverPlan::kAnswer,
       "Succeeded", "pg-main-0 is the primary already", at},
      {"the target is not a member", "pg-main-5", &healthy, std::nullopt, SwitchoverPlan::kAnswer,
       "Failed",
       "spec.patroni.switchover.targetInstance: pg-main-5 is not a member of this cluster (its "
       "members: pg-main-0, pg-main-1, pg-main-2); name one of them and annotate again",
       at},
      {"switchovers not enabled", "pg-main-1", &healthy, std::nullopt, SwitchoverPlan::kAnswer,
       "Failed", "spec.patroni.switchover.enabled is false: set it to true, then annotate again",
       at, std::nullopt, "Switchover", false},
      {"the target does not stream: it waits", "pg-main-2", &healthy, std::nullopt,
       SwitchoverPlan::kWait, "Waiting", waiting_msg, at, absl::Minutes(2)},
      {"still waiting: the wait's start is kept", "pg-main-2", &healthy,
       api::PostgresSwitchoverStatus{
           .trigger = "t2", .time = "2026-12-04T10:13:30Z", .result = "Waiting"},
       SwitchoverPlan::kWait, "Waiting", waiting_msg, "2026-12-04T10:13:30Z", absl::Seconds(30)},
      {"the bound ran out: Failed, not attempted", "pg-main-2", &healthy,
       api::PostgresSwitchoverStatus{
           .trigger = "t2", .time = "2026-12-04T10:13:00Z", .result = "Waiting"},
       SwitchoverPlan::kAnswer, "Failed",
       "not attempted: pg-main-2 did not stream from the primary pg-main-0 within 2m (now: "
       "replica, running); a switchover to a member that does not stream could lose "
       "acknowledged writes; annotate again once it streams",
       at},
      {"an earlier trigger's wait does not count", "pg-main-2", &healthy,
       api::PostgresSwitchoverStatus{
           .trigger = "t1", .time = "2026-12-04T09:00:00Z", .result = "Waiting"},
       SwitchoverPlan::kWait, "Waiting", waiting_msg, at, absl::Minutes(2)},
      {"the target is down", "pg-main-2", &down, std::nullopt, SwitchoverPlan::kWait, "Waiting",
       "waiting up to 2m for pg-main-2 to stream from the primary pg-main-0 (now: not "
       "answering); a switchover to a member that does not stream could lose acknowledged "
       "writes",
       at, absl::Minutes(2)},
      {"Patroni's choice, no replica streams", "", &none_streams, std::nullopt,
       SwitchoverPlan::kWait, "Waiting",
       "waiting up to 2m for a replica to stream from the primary pg-main-0; a switchover to a "
       "member that does not stream could lose acknowledged writes",
       at, absl::Minutes(2)},
      {"no primary to move from", "pg-main-1", &no_primary, std::nullopt, SwitchoverPlan::kHold, "",
       "", ""},
      {"a Failover needs no streaming", "pg-main-2", &none_streams, std::nullopt,
       SwitchoverPlan::kAct, "", "", at, std::nullopt, "Failover"},
      {"a Failover to a member that does not run", "pg-main-2", &down, std::nullopt,
       SwitchoverPlan::kAnswer, "Failed", "targetInstance pg-main-2 is not a running member", at,
       std::nullopt, "Failover"},
      {"a Failover without a target", "", &healthy, std::nullopt, SwitchoverPlan::kAnswer, "Failed",
       "a Failover needs spec.patroni.switchover.targetInstance", at, std::nullopt, "Failover"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PostgresCluster cluster = WithTrigger("t2", nullptr);
    cluster.metadata.name = "pg";
    cluster.spec.instances = {{.name = "main", .replicas = 3}};
    cluster.spec.patroni.switchover = {
        .enabled = c.enabled, .target_instance = c.target, .type = c.type};
    cluster.status.patroni.switchover = c.last;
    const SwitchoverPlan plan = PlanSwitchover(cluster, *c.members, now);
    EXPECT_EQ(plan.kind, c.kind) << plan.record.message;
    EXPECT_EQ(plan.record.result, c.result);
    EXPECT_EQ(plan.record.message, c.message);
    EXPECT_EQ(plan.recheck_after, c.recheck);
    EXPECT_EQ(SwitchoverActsNow(cluster, *c.members, now), c.kind == SwitchoverPlan::kAct);
    if (c.kind != SwitchoverPlan::kHold) {
      EXPECT_EQ(plan.record.trigger, "t2");
      EXPECT_EQ(plan.record.type, c.type);
      EXPECT_EQ(plan.record.from, c.members->primary);
      EXPECT_EQ(plan.record.to, c.target);
      EXPECT_EQ(plan.record.time, c.time);
    }
  }
  // No new trigger: nothing to do.
  PostgresCluster handled = WithTrigger("t2", "t2");
  EXPECT_EQ(PlanSwitchover(handled, healthy, now).kind, SwitchoverPlan::kNone);
}

}  // namespace
}  // namespace quorum::postgrescluster
