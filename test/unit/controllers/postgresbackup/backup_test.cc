// The PostgresBackup controller's pure parts: the phase planner, the reading
// of pgBackRest's report and the backup Job
// (src/controllers/postgresbackup/{plan,info,job}.h).
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/controllers/postgresbackup/info.h"
#include "src/controllers/postgresbackup/job.h"
#include "src/controllers/postgresbackup/plan.h"

namespace quorum::postgresbackup {
namespace {

using controllers::JobOutcome;

// `pgbackrest info --output=json --set=...` of one full backup (pgBackRest
// 2.45's layout, values made up).
constexpr char kInfo[] = R"([{
  "archive": [{"database": {"id": 1, "repo-key": 1}, "id": "15-1",
               "max": "000000010000000000000007", "min": "000000010000000000000001"}],
  "backup": [{
    "annotation": null,
    "archive": {"start": "000000010000000000000004", "stop": "000000010000000000000004"},
    "backrest": {"format": 5, "version": "2.45"},
    "database": {"id": 1, "repo-key": 2},
    "error": false,
    "info": {"delta": 31000000, "repository": {"delta": 4100000, "size": 4100000},
             "size": 31000000},
    "label": "20261204-101500F",
    "link": null,
    "lsn": {"start": "0/4000028", "stop": "0/4000138"},
    "prior": null,
    "reference": null,
    "tablespace": null,
    "timestamp": {"start": 1796379300, "stop": 1796379305},
    "type": "full"}],
  "cipher": "none", "name": "db",
  "status": {"code": 0, "message": "ok"}}])";

api::PostgresBackup Backup() {
  api::PostgresBackup b;
  b.metadata = {.name = "before-upgrade", .ns = "db", .uid = "u1", .generation = 1};
  b.spec.cluster_ref = "hippo";
  b.spec.repo_name = "repo2";
  b.spec.type = "full";
  return b;
}

api::PostgresCluster Cluster(bool ready, bool with_repo = true) {
  api::PostgresCluster c;
  c.metadata = {.name = "hippo", .ns = "db", .uid = "c1", .generation = 3};
  c.spec.postgres_version = 17;
  c.spec.instances = {api::PostgresInstanceSet{.name = "main", .replicas = 3}};
  if (with_repo) {
    api::PgBackRestSpec pgbr;
    pgbr.repos = {api::PgBackRestRepo{
        .name = "repo2", .s3 = {.bucket = "b", .endpoint = "s3.local", .region = "r"}}};
    pgbr.configuration_secrets = {"s3-keys"};
    c.spec.backups.pgbackrest = pgbr;
  }
  c.status.conditions.push_back({.type = "Ready", .status = ready ? "True" : "False"});
  c.status.observed_generation = 3;
  c.status.instances = {
      {.name = "main", .replicas = 3, .ready_replicas = 3, .updated_replicas = 3}};
  return c;
}

TEST(PostgresBackupInfoTest, ReadsTheBackupPgBackRestReports) {
  absl::StatusOr<api::PgBackRestBackupInfo> info = ParseBackupInfo(kInfo);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->label, "20261204-101500F");
  EXPECT_EQ(info->type, "full");
  EXPECT_EQ(info->repo, "repo2");
  EXPECT_EQ(info->start_time, "2026-12-04T10:15:00Z");
  EXPECT_EQ(info->stop_time, "2026-12-04T10:15:05Z");
  EXPECT_EQ(info->lsn_start, "0/4000028");
  EXPECT_EQ(info->lsn_stop, "0/4000138");
  EXPECT_EQ(info->wal_start, "000000010000000000000004");
  EXPECT_EQ(info->wal_stop, "000000010000000000000004");
  EXPECT_EQ(info->size, 31000000);
  EXPECT_EQ(info->repo_size, 4100000);
  EXPECT_EQ(info->prior, "");
}

// The Job's message since the repository part: the set's info, and what the
// repository held after it (its oldest backup's end in unix seconds).
TEST(PostgresBackupInfoTest, ReadsWhatTheRepositoryHeldAfterTheBackup) {
  const std::string message =
      absl::StrCat(R"({"info":)", kInfo,
                   R"(,"repository":{"walMin":"000000010000000000000001",)"
                   R"("walMax":"000000020000000000000009","oldestStop":1796375000}})");
  absl::StatusOr<api::PgBackRestBackupInfo> info = ParseBackupInfo(message);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->label, "20261204-101500F");
  EXPECT_EQ(info->repo_wal_min, "000000010000000000000001");
  EXPECT_EQ(info->repo_wal_max, "000000020000000000000009");
  EXPECT_EQ(info->repo_oldest_stop_time, "2026-12-04T09:03:20Z");
  // The script found nothing to say of the repository: left out.
  info = ParseBackupInfo(absl::StrCat(
      R"({"info":)", kInfo, R"(,"repository":{"walMin":"","walMax":"","oldestStop":0}})"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->repo_wal_max, "");
  EXPECT_EQ(info->repo_oldest_stop_time, "");
  // The info alone (a Job of an older operator).
  info = ParseBackupInfo(kInfo);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->repo_wal_max, "");
}

TEST(PostgresBackupInfoTest, RefusesWhatIsNotAReport) {
  for (const char* text :
       {"", "ERROR: [056]: unable to find primary cluster - cannot proceed", "[{\"backup\": [",
        "[]", "[{\"backup\": []}]", "{\"backup\": []}", "[{\"backup\": [{\"type\": \"full\"}]}]"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseBackupInfo(text).status())) << text;
  }
}

MemberObservation Member(const char* name, bool ready, bool primary = false, bool current = true) {
  return {.name = name, .set = "main", .ready = ready, .primary = primary, .current = current};
}

// Three members, hippo-main-1 the primary, all ready on the current template.
std::vector<MemberObservation> Healthy() {
  return {Member("hippo-main-0", true), Member("hippo-main-1", true, true),
          Member("hippo-main-2", true)};
}

TEST(PostgresBackupPlanTest, PhasesFollowTheClusterAndTheJob) {
  const api::PostgresBackup b = Backup();
  const api::PostgresCluster ready = Cluster(true), no_repo = Cluster(true, false);
  api::PostgresCluster unseen = Cluster(true);
  unseen.metadata.generation = 4;
  const std::vector<MemberObservation> healthy = Healthy();
  struct Case {
    const char* name;
    const api::PostgresCluster* cluster;
    std::vector<MemberObservation> members;
    std::optional<JobOutcome> job;
    std::string phase;
    bool create;
    bool standby;
    std::string reason;
    std::vector<std::string> hosts;
  } cases[] = {
      {"no cluster", nullptr, {}, std::nullopt, "Pending", false, false, "ClusterNotFound"},
      {"no such repo", &no_repo, healthy, std::nullopt, "Pending", false, false, "RepoNotFound"},
      {"spec not seen", &unseen, healthy, std::nullopt, "Pending", false, false, "MembersUpdating"},
      {"healthy",
       &ready,
       healthy,
       std::nullopt,
       "Started",
       true,
       true,
       "JobCreated",
       {"hippo-main-0", "hippo-main-1", "hippo-main-2"}},
      {"hosts in the spec's order",
       &ready,
       {healthy[2], healthy[1], healthy[0]},
       std::nullopt,
       "Started",
       true,
       true,
       "JobCreated",
       {"hippo-main-0", "hippo-main-1", "hippo-main-2"}},
      {"running", &ready, healthy, JobOutcome{}, "Started", false, false, "JobRunning"},
      {"running, cluster gone", nullptr, {}, JobOutcome{}, "Started", false, false, "JobRunning"},
      {"done", &ready, healthy, JobOutcome{.complete = true, .message = kInfo}, "Complete", false,
       false, "BackupComplete"},
      {"done, report cut", &ready, healthy, JobOutcome{.complete = true, .message = "[{\"backup\""},
       "Failed", false, false, "ResultUnreadable"},
      {"failed", &ready, healthy,
       JobOutcome{.failed = true, .message = "ERROR: [056]: unable to find primary cluster"},
       "Failed", false, false, "BackupFailed"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const BackupPlan plan = PlanBackup(
        {.backup = &b, .cluster = c.cluster, .members = c.members, .job = c.job, .now = "t1"});
    EXPECT_EQ(plan.status.phase, c.phase);
    EXPECT_EQ(plan.hosts, c.hosts);
    EXPECT_EQ(plan.create_job, c.create);
    EXPECT_EQ(plan.from_standby, c.standby);
    ASSERT_EQ(plan.status.conditions.size(), 2u);
    EXPECT_EQ(plan.status.conditions[0].type, "Complete");
    EXPECT_EQ(plan.status.conditions[0].reason, c.reason);
    EXPECT_EQ(plan.status.conditions[1].status, c.phase == "Failed" ? "True" : "False");
    EXPECT_EQ(plan.status.backup.has_value(), c.phase == "Complete");
  }
}

// Issue 33: a backup starts whenever a primary runs, not when the cluster is
// Ready (every member ready): members that are down never hold it back and
// never become the Job's hosts; ready members on an older template (a roll
// after a repository was added) do.
TEST(PostgresBackupPlanTest, ABackupStartsWhenAPrimaryRunsWhateverMembersAreDown) {
  const api::PostgresBackup b = Backup();
  // Ready=False (a member down), the other two on the current template.
  api::PostgresCluster degraded = Cluster(false);
  degraded.status.instances[0].ready_replicas = 2;
  degraded.status.instances[0].updated_replicas = 2;
  api::PostgresCluster rolling = Cluster(false);  // the StatefulSet's count lags
  rolling.status.instances[0].updated_replicas = 1;
  const api::PostgresCluster ready = Cluster(true);
  const MemberObservation m0 = Member("hippo-main-0", true), m2 = Member("hippo-main-2", true),
                          primary = Member("hippo-main-1", true, true);
  struct Case {
    const char* name;
    const api::PostgresCluster* cluster;
    std::vector<MemberObservation> members;
    std::string reason;              // the Complete condition's: why it waits, or JobCreated
    std::vector<std::string> hosts;  // when it starts
    bool standby = false;
  } cases[] = {
      {"a replica down",
       &degraded,
       {m0, primary, Member("hippo-main-2", false)},
       "JobCreated",
       {"hippo-main-0", "hippo-main-1"},
       false},  // one member down: from the primary (plan.cc: timelines)
      {"a replica down on the old template: it is not rolled yet, and holds nothing back",
       &degraded,
       {m0, primary, Member("hippo-main-2", false, false, false)},
       "JobCreated",
       {"hippo-main-0", "hippo-main-1"},
       false},  // one member down: from the primary (plan.cc: timelines)
      {"a replica's pod gone",
       &degraded,
       {m0, primary},
       "JobCreated",
       {"hippo-main-0", "hippo-main-1"},
       false},  // one member down: from the primary (plan.cc: timelines)
      {"both replicas down: from the primary alone",
       &degraded,
       {Member("hippo-main-0", false), primary, Member("hippo-main-2", false, false, false)},
       "JobCreated",
       {"hippo-main-1"},
       false},
      {"no member labelled primary",
       &ready,
       {m0, Member("hippo-main-1", true), m2},
       "NoRunningPrimary"},
      {"the primary's pod not ready (a failover under way)",
       &degraded,
       {m0, Member("hippo-main-1", false, true), m2},
       "NoRunningPrimary"},
      {"the primary in a set the spec no longer has",
       &ready,
       {m0, Member("hippo-old-0", true, true), m2},
       "NoRunningPrimary"},
      {"no member at all", &degraded, {}, "NoRunningPrimary"},
      {"a ready replica on the old template (a roll under way)",
       &ready,
       {m0, primary, Member("hippo-main-2", true, false, false)},
       "MembersUpdating"},
      {"the primary on the old template",
       &ready,
       {m0, Member("hippo-main-1", true, true, false), m2},
       "MembersUpdating"},
      {"the status counts fewer members updated than the cache shows",
       &rolling,
       {m0, primary, m2},
       "MembersUpdating"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const BackupPlan plan =
        PlanBackup({.backup = &b, .cluster = c.cluster, .members = c.members, .now = "t1"});
    ASSERT_EQ(plan.status.conditions.size(), 2u);
    EXPECT_EQ(plan.status.conditions[0].reason, c.reason) << plan.status.conditions[0].message;
    const bool starts = c.reason == "JobCreated";
    EXPECT_EQ(plan.create_job, starts);
    EXPECT_EQ(plan.status.phase, starts ? "Started" : "Pending");
    EXPECT_EQ(plan.hosts, c.hosts);
    EXPECT_EQ(plan.from_standby, c.standby);
  }
}

TEST(PostgresBackupPlanTest, AFinishedBackupNeverChanges) {
  api::PostgresBackup b = Backup();
  const api::PostgresCluster ready = Cluster(true);
  for (const char* phase : {"Complete", "Failed"}) {
    b.status.phase = phase;
    const BackupPlan plan = PlanBackup({.backup = &b, .cluster = &ready, .now = "t2"});
    EXPECT_FALSE(plan.create_job);
    EXPECT_EQ(plan.status, b.status);
  }
}

// Whatever it waits for, a backup that cannot start within
// api::kBackupStartTimeout of its creation fails, saying what it waited for.
TEST(PostgresBackupPlanTest, APendingBackupFailsOnceItCannotStartInTime) {
  const api::PostgresBackup b = Backup();
  const api::PostgresCluster ready = Cluster(true), no_repo = Cluster(true, false);
  api::PostgresCluster unseen = Cluster(true);
  unseen.metadata.generation = 4;
  std::vector<MemberObservation> no_primary = Healthy(), old_template = Healthy();
  no_primary[1].primary = false;
  old_template[0].current = false;
  struct Case {
    const api::PostgresCluster* cluster;
    std::vector<MemberObservation> members;
    std::string message;  // the Failed condition's
  } cases[] = {
      {nullptr, {}, "PostgresCluster hippo does not exist in this namespace"},
      {&no_repo, Healthy(),
       "PostgresCluster hippo has no repository repo2 in spec.backups.pgbackrest.repos"},
      {&unseen, Healthy(),
       "waiting for PostgresCluster hippo's members to run its current spec: its status is of "
       "generation 3, its spec of generation 4"},
      {&ready, no_primary,
       "waiting for PostgresCluster hippo to have a running primary (a member pod that is Ready "
       "and labelled role=primary)"},
      {&ready, old_template,
       "waiting for PostgresCluster hippo's members to run its current spec: hippo-main-0 is "
       "ready and runs an older pod template"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    BackupPlan plan = PlanBackup({.backup = &b,
                                  .cluster = c.cluster,
                                  .members = c.members,
                                  .now = "t",
                                  .age = absl::Minutes(1)});
    EXPECT_EQ(plan.status.phase, "Pending");
    EXPECT_FALSE(plan.create_job);
    EXPECT_EQ(plan.recheck_after, absl::Minutes(9));
    plan = PlanBackup({.backup = &b,
                       .cluster = c.cluster,
                       .members = c.members,
                       .now = "t",
                       .age = absl::Minutes(11)});
    EXPECT_EQ(plan.status.phase, "Failed");
    EXPECT_FALSE(plan.create_job);
    EXPECT_EQ(plan.status.conditions[1].reason, "StartTimeout");
    EXPECT_EQ(plan.status.conditions[1].message, "not started within 10m: " + c.message);
  }
}

TEST(PostgresBackupPlanTest, TheFailureSaysWhatPgBackRestSaid) {
  const api::PostgresBackup b = Backup();
  const api::PostgresCluster ready = Cluster(true);
  const BackupPlan plan =
      PlanBackup({.backup = &b,
                  .cluster = &ready,
                  .job = JobOutcome{.failed = true, .message = "ERROR: [039]: HTTP request failed"},
                  .now = "t"});
  EXPECT_TRUE(absl::StrContains(plan.status.conditions[1].message, "HTTP request failed"));
}

const nlohmann::json* Env(const nlohmann::json& container, const std::string& name) {
  for (const nlohmann::json& e : container["env"]) {
    if (e["name"] == name) return &e;
  }
  return nullptr;
}

TEST(PostgresBackupJobTest, TalksToEveryMembersServerWithTheClientCertificate) {
  const api::PostgresBackup b = Backup();
  const nlohmann::json job = BuildBackupJob(b, Cluster(true), MemberPods(Cluster(true)),
                                            /*from_standby=*/true);
  EXPECT_EQ(job["metadata"]["name"], "before-upgrade-backup");
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["kind"], "PostgresBackup");
  EXPECT_EQ(job["spec"]["backoffLimit"], 0);
  const nlohmann::json& pod = job["spec"]["template"]["spec"];
  EXPECT_EQ(pod["automountServiceAccountToken"], false);
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(job["spec"]["template"]["metadata"]["labels"]["postgres.quorum.dev/pgbackrest-client"],
            "hippo");
  const nlohmann::json& c = pod["containers"][0];
  // sh -c SCRIPT NAME TYPE REPO_NUMBER
  ASSERT_EQ(c["command"].size(), 6u);
  EXPECT_EQ(c["command"][4], "full");
  EXPECT_EQ(c["command"][5], "2");
  EXPECT_EQ((*Env(c, "PGBACKREST_BACKUP_STANDBY"))["value"], "y");
  EXPECT_EQ((*Env(c, "PGBACKREST_PG1_HOST"))["value"], "hippo-main-0.hippo-pods.db.svc");
  EXPECT_EQ((*Env(c, "PGBACKREST_PG3_HOST"))["value"], "hippo-main-2.hippo-pods.db.svc");
  EXPECT_EQ(Env(c, "PGBACKREST_PG4_HOST"), nullptr);
  EXPECT_EQ((*Env(c, "PGBACKREST_PG2_HOST_TYPE"))["value"], "tls");
  EXPECT_EQ((*Env(c, "PGBACKREST_PG2_PATH"))["value"], "/pgdata/pg17");
  // No secret is in the environment or the command: the store's keys come
  // from the user's Secrets as files.
  const std::string text = job.dump();
  EXPECT_FALSE(absl::StrContains(text, "secretKeyRef"));
  bool keys_mounted = false;
  for (const nlohmann::json& v : pod["volumes"]) {
    if (v.contains("projected")) {
      keys_mounted = v["projected"]["sources"][0]["secret"]["name"] == "s3-keys";
    }
  }
  EXPECT_TRUE(keys_mounted);
  const nlohmann::json alone = BuildBackupJob(b, Cluster(true), {"hippo-main-1"}, false);
  const nlohmann::json& lone = alone["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ((*Env(lone, "PGBACKREST_BACKUP_STANDBY"))["value"], "n");
  EXPECT_EQ((*Env(lone, "PGBACKREST_PG1_HOST"))["value"], "hippo-main-1.hippo-pods.db.svc");
  EXPECT_EQ(Env(lone, "PGBACKREST_PG2_HOST"), nullptr);
}

// A volume repository: the Job mounts the host's claim, runs beside the
// host, and reads the file in which the volumes are local.
TEST(PostgresBackupJobTest, AVolumeRepositorysJobMountsTheClaimBesideTheRepositoryHost) {
  api::PostgresCluster cluster = Cluster(true);
  cluster.spec.backups.pgbackrest->repos[0].volume_claim_spec = {
      {"resources", {{"requests", {{"storage", "5Gi"}}}}}};
  const nlohmann::json job = BuildBackupJob(Backup(), cluster, MemberPods(cluster), true);
  const nlohmann::json& pod = job["spec"]["template"]["spec"];
  const nlohmann::json& c = pod["containers"][0];
  EXPECT_EQ((*Env(c, "PGBACKREST_CONFIG"))["value"], "/etc/patroni/pgbackrest-repo.conf");
  bool claim = false, file = false, mounted = false;
  for (const nlohmann::json& v : pod["volumes"]) {
    if (v.contains("persistentVolumeClaim")) {
      claim = v["persistentVolumeClaim"]["claimName"] == "repo2-hippo-repo-host-0";
    }
    if (v.contains("configMap")) {
      for (const nlohmann::json& item : v["configMap"]["items"]) {
        file = file || item["key"] == "pgbackrest-repo.conf";
      }
    }
  }
  for (const nlohmann::json& m : c["volumeMounts"]) {
    mounted = mounted || m["mountPath"] == "/pgbackrest/repo2";
  }
  EXPECT_TRUE(claim && file && mounted) << pod.dump();
  const nlohmann::json& term =
      pod["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
  EXPECT_EQ(term["topologyKey"], "kubernetes.io/hostname");
  EXPECT_EQ(term["labelSelector"]["matchLabels"]["app.kubernetes.io/name"], "postgres-repo-host");
  EXPECT_EQ(term["labelSelector"]["matchLabels"]["app.kubernetes.io/instance"], "hippo");
  // An S3 repository's Job has none of it.
  const nlohmann::json s3 = BuildBackupJob(Backup(), Cluster(true), {"hippo-main-0"}, false);
  EXPECT_FALSE(s3["spec"]["template"]["spec"].contains("affinity"));
  EXPECT_EQ((*Env(s3["spec"]["template"]["spec"]["containers"][0], "PGBACKREST_CONFIG"))["value"],
            "/etc/patroni/pgbackrest.conf");
}

TEST(PostgresBackupJobTest, LongNamesAreShortenedDeterministically) {
  api::PostgresBackup b = Backup();
  b.metadata.name = std::string(60, 'a');
  const std::string name = JobName(b);
  EXPECT_LE(name.size(), 63u);
  EXPECT_EQ(name, JobName(b));
  EXPECT_TRUE(absl::EndsWith(name, "-backup"));
}

// A member that has just stopped being ready (a roll, a restart, a
// switchover) holds the backup back for kMemberSettle; one down longer does
// not, and the plan looks again when the settling runs out.
TEST(PostgresBackupPlanTest, AMemberJustDownHoldsTheBackupBackForAWhile) {
  const api::PostgresBackup b = Backup();
  api::PostgresCluster degraded = Cluster(false);
  degraded.status.instances[0].ready_replicas = 2;
  degraded.status.instances[0].updated_replicas = 2;
  MemberObservation down = Member("hippo-main-2", false);
  const std::vector<MemberObservation> base = {Member("hippo-main-0", true),
                                               Member("hippo-main-1", true, true)};
  auto plan_at = [&](const char* since) {
    std::vector<MemberObservation> members = base;
    down.not_ready_since = since;
    members.push_back(down);
    return PlanBackup(
        {.backup = &b, .cluster = &degraded, .members = members, .now = "2026-01-01T00:05:00Z"});
  };
  BackupPlan p = plan_at("2026-01-01T00:04:30Z");
  EXPECT_FALSE(p.create_job);
  EXPECT_EQ(p.status.conditions[0].reason, "MembersUpdating") << p.status.conditions[0].message;
  ASSERT_TRUE(p.recheck_after.has_value());
  EXPECT_EQ(*p.recheck_after, absl::Seconds(91));
  p = plan_at("2026-01-01T00:02:59Z");
  EXPECT_TRUE(p.create_job) << p.status.conditions[0].message;
  EXPECT_EQ(p.hosts, (std::vector<std::string>{"hippo-main-0", "hippo-main-1"}));
  EXPECT_FALSE(p.from_standby);
  p = plan_at("");
  EXPECT_TRUE(p.create_job) << "since unknown: no hold";
}

}  // namespace
}  // namespace quorum::postgresbackup
