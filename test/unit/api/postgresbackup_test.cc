// PostgresBackup's admission rules, decoding and status form
// (api/postgresbackup_types.h).
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "api/postgresbackup_types.h"

namespace quorum::api {
namespace {

using Json = nlohmann::json;

Json Backup(Json spec) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresBackup"},
          {"metadata", {{"name", "b1"}, {"namespace", "db"}, {"uid", "u"}, {"generation", 1}}},
          {"spec", spec}};
}

TEST(PostgresBackupValidationTest, RefusesNamingTheField) {
  struct Case {
    const char* name;
    Json spec;
    const char* field;
  } cases[] = {
      {"no cluster", {{"repoName", "repo1"}}, "spec.clusterRef.name"},
      {"bad cluster name",
       {{"clusterRef", {{"name", "Hippo"}}}, {"repoName", "repo1"}},
       "spec.clusterRef.name"},
      {"no repo", {{"clusterRef", {{"name", "hippo"}}}}, "spec.repoName"},
      {"repo5", {{"clusterRef", {{"name", "hippo"}}}, {"repoName", "repo5"}}, "spec.repoName"},
      {"bad type",
       {{"clusterRef", {{"name", "hippo"}}}, {"repoName", "repo1"}, {"type", "differential"}},
       "spec.type"},
      {"unknown field",
       {{"clusterRef", {{"name", "hippo"}}}, {"repoName", "repo1"}, {"options", {"--x"}}},
       "spec.options"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<FieldError> errors = ValidatePostgresBackup(Backup(c.spec), nullptr);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].field, c.field);
    absl::StatusOr<PostgresBackup> parsed = ParsePostgresBackup(Backup(c.spec));
    ASSERT_FALSE(parsed.ok());
    EXPECT_TRUE(absl::StrContains(parsed.status().message(), c.field));
  }
  EXPECT_EQ(ValidatePostgresBackup({{"kind", "PostgresBackup"}}, nullptr)[0].field, "spec");
}

TEST(PostgresBackupValidationTest, TheSpecIsImmutable) {
  const Json old = Backup({{"clusterRef", {{"name", "hippo"}}}, {"repoName", "repo1"}});
  Json changed = old;
  changed["spec"]["type"] = "incr";
  const std::vector<FieldError> errors = ValidatePostgresBackup(changed, &old);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "spec");
  EXPECT_TRUE(ValidatePostgresBackup(old, &old).empty());
}

TEST(PostgresBackupTypesTest, DecodesWithTheDefaultTypeAndRoundTripsStatus) {
  Json obj = Backup({{"clusterRef", {{"name", "hippo"}}}, {"repoName", "repo3"}});
  absl::StatusOr<PostgresBackup> b = ParsePostgresBackup(obj);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->spec.cluster_ref, "hippo");
  EXPECT_EQ(b->spec.repo_name, "repo3");
  EXPECT_EQ(b->spec.type, "full");
  EXPECT_EQ(b->metadata.uid, "u");

  PostgresBackupStatus s{.observed_generation = 1, .phase = "Complete", .job_name = "b1-backup"};
  s.conditions.push_back({.type = "Complete", .status = "True", .reason = "BackupComplete"});
  s.backup = PgBackRestBackupInfo{.label = "20261204-101500F_20261204-111500I",
                                  .type = "incr",
                                  .repo = "repo3",
                                  .start_time = "2026-12-04T11:15:00Z",
                                  .stop_time = "2026-12-04T11:15:09Z",
                                  .lsn_start = "0/5000028",
                                  .lsn_stop = "0/5000100",
                                  .wal_start = "000000010000000000000005",
                                  .wal_stop = "000000010000000000000005",
                                  .size = 1000,
                                  .repo_size = 10,
                                  .prior = "20261204-101500F"};
  obj["status"] = ToJson(s);
  absl::StatusOr<PostgresBackup> again = ParsePostgresBackup(obj);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->status, s);
}

}  // namespace
}  // namespace quorum::api
