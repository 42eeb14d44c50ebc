// The backup command's pure half: the name of the object, the repository it
// picks, the object it creates and what --wait prints.
#include "src/kubectl/backup_command.h"

#include <gtest/gtest.h>

#include "src/kubectl/exit_code.h"

namespace quorum::kubectl {
namespace {

using Json = nlohmann::json;

api::PostgresCluster ClusterWithRepos(std::vector<std::string> repos) {
  api::PostgresCluster c;
  c.metadata.name = "pg";
  if (repos.empty()) return c;
  c.spec.backups.pgbackrest.emplace();
  for (const std::string& r : repos) c.spec.backups.pgbackrest->repos.push_back({.name = r});
  return c;
}

api::PostgresBackup Backup(const std::string& phase) {
  api::PostgresBackup b;
  b.metadata.name = "pg-20261206-195505";
  b.status.phase = phase;
  return b;
}

TEST(BackupOptionsTest, AcceptsThePgBackRestTypesOnly) {
  for (const char* type : {"full", "diff", "incr"}) {
    EXPECT_TRUE(ValidateBackupOptions({.type = type}).ok()) << type;
  }
  for (const char* type : {"", "Full", "differential", "snapshot"}) {
    absl::Status s = ValidateBackupOptions({.type = type});
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << type << ": " << s;
    EXPECT_EQ(ExitCodeFor(s), kExitUsage);
  }
}

TEST(BackupObjectNameTest, IsTheClusterAndTheUtcSecond) {
  absl::Time t;
  std::string err;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, "2026-12-06T21:55:05.9+02:00", &t, &err)) << err;
  EXPECT_EQ(BackupObjectName("demo-pg", t), "demo-pg-20261206-195505");
}

TEST(ChooseBackupRepoTest, TakesTheRequestedOrTheFirstAndNamesTheChoices) {
  struct Case {
    std::vector<std::string> repos;
    std::string requested, want, error_part;
  } cases[] = {
      {{"repo1"}, "", "repo1", ""},
      {{"repo2", "repo1"}, "", "repo2", ""},
      {{"repo1", "repo2"}, "repo2", "repo2", ""},
      {{"repo1", "repo2"}, "repo3", "", "has no repository \"repo3\" (it has repo1, repo2)"},
      {{}, "", "", "PostgresCluster pg has no backup repository"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::string> got = ChooseBackupRepo(ClusterWithRepos(c.repos), c.requested);
    if (c.error_part.empty()) {
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(*got, c.want);
    } else {
      EXPECT_TRUE(absl::IsInvalidArgument(got.status())) << got.status();
      EXPECT_NE(got.status().message().find(c.error_part), std::string::npos) << got.status();
    }
  }
}

TEST(BuildPostgresBackupTest, IsTheObjectAUserWouldWriteAndPassesAdmission) {
  const Json b = BuildPostgresBackup("pg-20261206-195505", "pg", "repo2", "incr");
  EXPECT_EQ(b,
            (Json{{"apiVersion", "postgres.quorum.dev/v1alpha1"},
                  {"kind", "PostgresBackup"},
                  {"metadata", {{"name", "pg-20261206-195505"}}},
                  {"spec",
                   {{"clusterRef", {{"name", "pg"}}}, {"repoName", "repo2"}, {"type", "incr"}}}}));
  EXPECT_TRUE(api::ValidatePostgresBackup(b, nullptr).empty());
  EXPECT_TRUE(api::ParsePostgresBackup(b).ok());
}

TEST(BackupOutcomeTest, CompleteExitsZeroFailedOrUnfinishedOne) {
  EXPECT_FALSE(BackupFinished(Backup("")));
  EXPECT_FALSE(BackupFinished(Backup("Started")));
  EXPECT_TRUE(BackupFinished(Backup("Complete")));
  EXPECT_TRUE(BackupFinished(Backup("Failed")));

  api::PostgresBackup done = Backup("Complete");
  done.status.backup = api::PgBackRestBackupInfo{
      .label = "20261206-195510F", .type = "full", .repo = "repo1", .size = 31457280};
  CommandOutput ok = BackupOutcome(done, true, absl::Hours(1));
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.text,
            "postgresbackup/pg-20261206-195505: Complete (20261206-195510F, full in repo1, "
            "30.0 MiB)\n");

  api::PostgresBackup failed = Backup("Failed");
  failed.status.conditions.push_back(
      {.type = "Failed", .status = "True", .reason = "JobFailed", .message = "pgbackrest: [056]"});
  CommandOutput bad = BackupOutcome(failed, true, absl::Hours(1));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.text, "postgresbackup/pg-20261206-195505: Failed: pgbackrest: [056]\n");

  CommandOutput late = BackupOutcome(Backup("Started"), false, absl::Minutes(5));
  EXPECT_EQ(late.exit_code, 1);
  EXPECT_EQ(late.text,
            "postgresbackup/pg-20261206-195505: not finished after 5m (phase Started)\n");
}

}  // namespace
}  // namespace quorum::kubectl
