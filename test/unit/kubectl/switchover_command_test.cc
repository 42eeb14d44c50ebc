// The switchover command's pure half: the options it refuses, the one merge
// patch it sends, when a status record answers its trigger, and what it
// prints with which exit code.
#include "src/kubectl/switchover_command.h"

#include <gtest/gtest.h>

#include "api/postgrescluster.h"
#include "src/kubectl/exit_code.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

absl::Time At(const char* rfc3339) {
  absl::Time t;
  std::string err;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) << err;
  return t;
}

api::PostgresCluster WithRecord(const std::string& trigger, const std::string& result,
                                const std::string& message = "") {
  api::PostgresCluster c;
  c.metadata.name = "pg";
  c.status.patroni.switchover = api::PostgresSwitchoverStatus{.trigger = trigger,
                                                              .type = "Switchover",
                                                              .from = "pg-main-0",
                                                              .to = "pg-main-1",
                                                              .result = result,
                                                              .message = message};
  return c;
}

TEST(SwitchoverOptionsTest, RefusesAnEtcdClusterAndAFailoverWithoutATarget) {
  struct Case {
    SwitchoverOptions options;
    bool ok;
  } cases[] = {
      {{.target = {Kind::kAny, "pg"}}, true},
      {{.target = {Kind::kPostgresCluster, "pg"}, .to = "pg-main-1"}, true},
      {{.target = {Kind::kAny, "pg"}, .to = "pg-main-1", .failover = true}, true},
      {{.target = {Kind::kAny, "pg"}, .failover = true}, false},
      {{.target = {Kind::kEtcdCluster, "etcd"}}, false},
  };
  for (const Case& c : cases) {
    absl::Status s = ValidateSwitchoverOptions(c.options);
    EXPECT_EQ(s.ok(), c.ok) << c.options.target.name << " " << c.options.to << ": " << s;
    if (!s.ok()) {
      EXPECT_EQ(ExitCodeFor(s), kExitUsage);
    }
  }
}

TEST(SwitchoverTriggerTest, IsTheUtcTimeToTheMillisecond) {
  EXPECT_EQ(NewSwitchoverTrigger(At("2026-12-06T19:55:05.123+01:00")),
            "kubectl-20261206T185505.123Z");
  EXPECT_NE(NewSwitchoverTrigger(At("2026-12-06T19:55:05.123Z")),
            NewSwitchoverTrigger(At("2026-12-06T19:55:05.124Z")));
}

TEST(SwitchoverPatchTest, SetsTheSpecAndTheTriggerInOnePatch) {
  struct Case {
    SwitchoverOptions options;
    Json switchover;
  } cases[] = {
      {{.target = {Kind::kAny, "pg"}},
       {{"enabled", true}, {"targetInstance", nullptr}, {"type", "Switchover"}}},
      {{.target = {Kind::kAny, "pg"}, .to = "pg-main-2"},
       {{"enabled", true}, {"targetInstance", "pg-main-2"}, {"type", "Switchover"}}},
      {{.target = {Kind::kAny, "pg"}, .to = "pg-main-2", .failover = true},
       {{"enabled", true}, {"targetInstance", "pg-main-2"}, {"type", "Failover"}}},
  };
  for (const Case& c : cases) {
    const Json patch = BuildSwitchoverPatch(c.options, "kubectl-1");
    EXPECT_EQ(
        patch,
        (Json{{"metadata",
               {{"annotations", {{std::string(api::kSwitchoverTriggerAnnotation), "kubectl-1"}}}}},
              {"spec", {{"patroni", {{"switchover", c.switchover}}}}}}))
        << patch.dump();
  }
}

TEST(FinalSwitchoverRecordTest, AnswersOnlyItsOwnTriggerOnceNotWaiting) {
  EXPECT_FALSE(FinalSwitchoverRecord(api::PostgresCluster{}, "t2").has_value()) << "no record";
  EXPECT_FALSE(FinalSwitchoverRecord(WithRecord("t1", "Succeeded"), "t2").has_value())
      << "an older trigger's record";
  EXPECT_FALSE(FinalSwitchoverRecord(WithRecord("t2", "Waiting"), "t2").has_value());
  EXPECT_EQ(FinalSwitchoverRecord(WithRecord("t2", "Succeeded"), "t2")->result, "Succeeded");
  EXPECT_EQ(FinalSwitchoverRecord(WithRecord("t2", "Failed"), "t2")->result, "Failed");
}

TEST(SwitchoverOutcomeTest, PrintsTheResultAndExitsByIt) {
  const api::PostgresCluster done = WithRecord("t", "Succeeded");
  CommandOutput ok =
      SwitchoverOutcome("pg", done.status.patroni.switchover, done, absl::Minutes(3));
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.text, "Switchover of PostgresCluster pg: Succeeded (pg-main-0 -> pg-main-1)\n");

  const api::PostgresCluster failed = WithRecord("t", "Failed", "pg-main-1 is not streaming");
  CommandOutput bad =
      SwitchoverOutcome("pg", failed.status.patroni.switchover, failed, absl::Minutes(3));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.text,
            "Switchover of PostgresCluster pg: Failed (pg-main-0 -> pg-main-1)\n"
            "  pg-main-1 is not streaming\n");

  const api::PostgresCluster waiting = WithRecord("t", "Waiting", "pg-main-1 does not stream yet");
  CommandOutput late = SwitchoverOutcome("pg", std::nullopt, waiting, absl::Minutes(3));
  EXPECT_EQ(late.exit_code, 1);
  EXPECT_EQ(late.text,
            "switchover of PostgresCluster pg: no result after 3m "
            "(Waiting: pg-main-1 does not stream yet)\n");
}

}  // namespace
}  // namespace quorum::kubectl
