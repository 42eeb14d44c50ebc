// The restore command's pure half: the options it refuses (an EtcdCluster,
// two targets, no --yes), the one merge patch it sends, when a status record
// answers its trigger, and what it prints with which exit code.
#include "src/kubectl/restore_command.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "src/kubectl/exit_code.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

RestoreOptions Options() { return {.target = {Kind::kPostgresCluster, "pg"}, .yes = true}; }

api::PostgresCluster WithRecord(const std::string& id, const std::string& phase,
                                const std::string& message = "") {
  api::PostgresCluster c;
  c.metadata.name = "pg";
  c.status.restore = api::PgBackRestRestoreStatus{.id = id, .phase = phase, .message = message};
  return c;
}

TEST(ValidateRestoreOptionsTest, RefusesWhatItCannotOrMustNotDo) {
  RestoreOptions etcd = Options();
  etcd.target.kind = Kind::kEtcdCluster;
  RestoreOptions two = Options();
  two.to = {.time = "2026-12-04T10:15:00Z", .lsn = "0/5000100"};
  RestoreOptions unconfirmed = Options();
  unconfirmed.yes = false;
  unconfirmed.to.time = "2026-12-04T10:15:00Z";
  for (const RestoreOptions& o : {etcd, two, unconfirmed}) {
    EXPECT_EQ(ValidateRestoreOptions(o).code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(absl::StrContains(ValidateRestoreOptions(unconfirmed).message(),
                                "back to time 2026-12-04T10:15:00Z"))
      << ValidateRestoreOptions(unconfirmed);
  EXPECT_TRUE(absl::StrContains(ValidateRestoreOptions(unconfirmed).message(), "--yes"));
  RestoreOptions ok = Options();
  ok.to.xid = "1234";
  EXPECT_TRUE(ValidateRestoreOptions(ok).ok());
  EXPECT_TRUE(ValidateRestoreOptions(Options()).ok());  // the end of the archive
}

TEST(BuildRestorePatchTest, SetsTheSpecAndTheTriggerInOnePatch) {
  RestoreOptions o = Options();
  o.to.time = "2026-12-04T10:15:00Z";
  o.set = "20261204-101500F";
  EXPECT_EQ(BuildRestorePatch(o, "repo2", "kubectl-1"), Json::parse(R"({
    "metadata": {"annotations": {"postgres.quorum.dev/pgbackrest-restore": "kubectl-1"}},
    "spec": {"backups": {"pgbackrest": {"restore": {
      "enabled": true, "repoName": "repo2", "set": "20261204-101500F",
      "target": {"time": "2026-12-04T10:15:00Z", "lsn": null, "xid": null}}}}}})"));
  // No set, no target: both removed (pgBackRest picks; the end of the archive).
  const Json bare = BuildRestorePatch(Options(), "repo1", "kubectl-2");
  const Json& restore = bare["spec"]["backups"]["pgbackrest"]["restore"];
  EXPECT_TRUE(restore["set"].is_null());
  EXPECT_TRUE(restore["target"].is_null());
}

TEST(FinalRestoreRecordTest, OnlyAFinalPhaseOfThisTriggerAnswers) {
  EXPECT_FALSE(FinalRestoreRecord(api::PostgresCluster{}, "t1").has_value());
  EXPECT_FALSE(FinalRestoreRecord(WithRecord("t0", "Succeeded"), "t1").has_value());
  for (const char* phase : {"Checking", "Stopping", "Restoring"}) {
    EXPECT_FALSE(FinalRestoreRecord(WithRecord("t1", phase), "t1").has_value()) << phase;
  }
  EXPECT_TRUE(FinalRestoreRecord(WithRecord("t1", "Succeeded"), "t1").has_value());
  EXPECT_TRUE(FinalRestoreRecord(WithRecord("t1", "Failed"), "t1").has_value());
}

TEST(RestoreOutcomeTest, ExitCodesAndText) {
  CommandOutput ok =
      RestoreOutcome("pg", WithRecord("t1", "Succeeded").status.restore, {}, absl::Minutes(1));
  EXPECT_EQ(ok.exit_code, kExitHealthy);
  EXPECT_EQ(ok.text, "restore of PostgresCluster pg: Succeeded\n");
  CommandOutput failed = RestoreOutcome(
      "pg", WithRecord("t1", "Failed", "no such set").status.restore, {}, absl::Minutes(1));
  EXPECT_EQ(failed.exit_code, kExitDegraded);
  EXPECT_EQ(failed.text, "restore of PostgresCluster pg: Failed\n  no such set\n");
  CommandOutput late =
      RestoreOutcome("pg", std::nullopt, WithRecord("t1", "Restoring"), absl::Minutes(30));
  EXPECT_EQ(late.exit_code, kExitDegraded);
  EXPECT_EQ(late.text, "restore of PostgresCluster pg: not finished after 30m (Restoring)\n");
}

}  // namespace
}  // namespace quorum::kubectl
