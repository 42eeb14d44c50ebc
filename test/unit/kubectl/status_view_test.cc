// The status views: what `kubectl quorum status` shows, built from the typed
// objects only.
#include "src/kubectl/status_view.h"

#include <gtest/gtest.h>

#include "test/unit/kubectl/fixtures.h"

namespace quorum::kubectl {
namespace {

using fixtures::Json;

TEST(PhaseTest, FollowsTheReadyConditionAndDeletion) {
  auto conditions = [](const char* ready) {
    std::vector<api::Condition> out = {{.type = "Initialized", .status = "True"}};
    if (ready != nullptr) out.push_back({.type = "Ready", .status = ready});
    return out;
  };
  struct Case {
    const char* ready;
    bool deleting;
    const char* phase;
    Health health;
  } cases[] = {
      {"True", false, "Ready", Health::kHealthy},
      {"False", false, "NotReady", Health::kDegraded},
      {"Unknown", false, "NotReady", Health::kDegraded},
      {nullptr, false, "Pending", Health::kDegraded},
      {"True", true, "Deleting", Health::kDegraded},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PhaseOf(conditions(c.ready), c.deleting), c.phase) << (c.ready ? c.ready : "none");
    EXPECT_EQ(HealthOf(conditions(c.ready), c.deleting), c.health);
  }
}

TEST(SummarizeBackupsTest, PicksTheNewestAndTheNewestComplete) {
  const std::vector<BackupRow> rows = {
      {.name = "a", .phase = "Complete", .time = "2026-12-05T02:00:09Z"},
      {.name = "b", .phase = "Failed", .time = "2026-12-06T02:00:00Z"},
      {.name = "c", .phase = "Complete", .time = "2026-12-04T02:00:00Z"},
      {.name = "d", .phase = "Pending", .time = "not a time"},
  };
  const BackupsView v = SummarizeBackups(rows);
  EXPECT_EQ(v.count, 4);
  ASSERT_TRUE(v.last && v.last_complete);
  EXPECT_EQ(v.last->name, "b");
  EXPECT_EQ(v.last_complete->name, "a");
  EXPECT_EQ(SummarizeBackups({}), BackupsView{});
}

TEST(EtcdStatusViewTest, ShowsMembersRolesPodsAndSecurityFromStatusAndSpec) {
  const EtcdStatusView v =
      BuildEtcdStatusView(fixtures::EtcdCluster(), fixtures::EtcdPods(), fixtures::EtcdBackups());
  EXPECT_EQ(v.phase, "NotReady");
  EXPECT_EQ(v.health, Health::kDegraded);
  EXPECT_EQ(v.desired_replicas, 3);
  EXPECT_EQ(v.ready_replicas, 2);
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_EQ(v.members[0], (EtcdMemberRow{"etcd-a-0", "8e9e05c52164694d", "leader", "3.6.16", true,
                                         "Running, ready"}));
  EXPECT_EQ(v.members[1].role, "follower");
  EXPECT_EQ(v.members[2], (EtcdMemberRow{"etcd-a-2", "fd422379fda50e48", "learner", "", false,
                                         "Running, not ready"}));
  EXPECT_EQ(v.security, (EtcdSecurityView{.peer_tls = true,
                                          .server_tls = true,
                                          .client_cert_auth = true,
                                          .managed_certificates = true,
                                          .auth = true}));
  EXPECT_TRUE(v.alarms.empty());
  EXPECT_EQ(v.backups.count, 2);  // "other" backs up etcd-b
  EXPECT_EQ(v.backups.last->name, "nightly-2");
  EXPECT_EQ(v.backups.last_complete->detail, "pvc://backups/nightly-1.db");
  EXPECT_EQ(v.backups.last_complete->time, "2026-12-05T02:00:09Z");
  ASSERT_EQ(v.conditions.size(), 2u);
  EXPECT_EQ(v.conditions[1].message, "etcd-a-2 is not healthy");
}

TEST(EtcdStatusViewTest, ShowsMissingPodsPodsThatAreNoMemberAndTheSpaceAlarm) {
  Json obj = fixtures::EtcdClusterJson();
  obj["status"]["members"].erase(2);  // etcd-a-2 has a pod but has not joined
  obj["status"]["conditions"].push_back(fixtures::Condition(
      "SpaceAlarm", "True", "NoSpace", "quota reached", "2026-12-06T15:00:00Z"));
  std::vector<PodInfo> pods = fixtures::EtcdPods();
  pods.erase(pods.begin());  // etcd-a-0's pod is gone
  const EtcdStatusView v = BuildEtcdStatusView(fixtures::EtcdCluster(obj), pods, {});
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_EQ(v.members[0].pod, "missing");
  EXPECT_EQ(v.members[2].role, "not a member");
  EXPECT_EQ(v.alarms, std::vector<std::string>{"NOSPACE"});
  EXPECT_EQ(v.backups, BackupsView{});
}

TEST(EtcdStatusViewTest, IsReadyAndHealthyWhenStatusSaysSo) {
  Json obj = fixtures::EtcdClusterJson();
  obj["status"]["conditions"][1]["status"] = "True";
  obj["spec"]["security"] = Json::object();
  const EtcdStatusView v = BuildEtcdStatusView(fixtures::EtcdCluster(obj), {}, {});
  EXPECT_EQ(v.phase, "Ready");
  EXPECT_EQ(v.health, Health::kHealthy);
  EXPECT_EQ(v.security, EtcdSecurityView{});
}

TEST(PostgresStatusViewTest, ShowsInstanceSetsMembersRolesDcsRepositoriesAndBackups) {
  const PostgresStatusView v = BuildPostgresStatusView(
      fixtures::PostgresCluster(), fixtures::PostgresPods(), fixtures::PostgresBackups());
  EXPECT_EQ(v.phase, "Ready");
  EXPECT_EQ(v.health, Health::kHealthy);
  EXPECT_EQ(v.postgres_version, 17);
  EXPECT_EQ(v.primary, "pg-a-main-1");
  EXPECT_EQ(v.dcs, "etcd (EtcdCluster etcd-a)");
  ASSERT_EQ(v.instance_sets.size(), 2u);
  EXPECT_EQ(v.instance_sets[1], (PostgresInstanceSetRow{"reporting", 1, 1, 1}));
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_EQ(v.members[0],
            (PostgresMemberRow{"pg-a-main-0", "main", "replica", true, "Running", 1}));
  EXPECT_EQ(v.members[1].role, "primary");
  EXPECT_EQ(v.members[2].role, "");
  EXPECT_FALSE(v.members[2].ready);
  ASSERT_EQ(v.repos.size(), 1u);
  EXPECT_EQ(v.repos[0].recoverable_to, "2026-12-06T02:05:00Z");
  EXPECT_EQ(v.repos[0].last_full, "20261205-020000F");
  EXPECT_EQ(v.backups.last->name, "manual-2");
  EXPECT_EQ(v.backups.last_complete->detail, "20261205-020000F in repo1");
  EXPECT_EQ(v.last_switchover,
            "Switchover pg-a-main-0 -> pg-a-main-1: Succeeded at 2026-12-06T10:00:00Z");
  EXPECT_EQ(v.restore, "");
}

TEST(BackupsViewTest, AForbiddenBackupListIsUnreadableAndTheRestOfTheViewStays) {
  struct Case {
    const char* unreadable;
    BackupsView etcd_want, postgres_want;
  } cases[] = {
      {"forbidden: etcdbackups.etcd.aenix.io",
       {.unreadable = "forbidden: etcdbackups.etcd.aenix.io"},
       {.unreadable = "forbidden: etcdbackups.etcd.aenix.io"}},
      {"forbidden: postgresbackups.postgres.quorum.dev",
       {.unreadable = "forbidden: postgresbackups.postgres.quorum.dev"},
       {.unreadable = "forbidden: postgresbackups.postgres.quorum.dev"}},
      {"", BuildEtcdStatusView(fixtures::EtcdCluster(), {}, fixtures::EtcdBackups()).backups,
       BuildPostgresStatusView(fixtures::PostgresCluster(), {}, fixtures::PostgresBackups())
           .backups},
  };
  for (const Case& c : cases) {
    const EtcdStatusView etcd = BuildEtcdStatusView(fixtures::EtcdCluster(), fixtures::EtcdPods(),
                                                    fixtures::EtcdBackups(), c.unreadable);
    EXPECT_EQ(etcd.backups, c.etcd_want) << c.unreadable;
    EXPECT_EQ(etcd.members.size(), 3u);
    EXPECT_EQ(etcd.phase, "NotReady");
    const PostgresStatusView pg =
        BuildPostgresStatusView(fixtures::PostgresCluster(), fixtures::PostgresPods(),
                                fixtures::PostgresBackups(), c.unreadable);
    EXPECT_EQ(pg.backups, c.postgres_want) << c.unreadable;
    EXPECT_EQ(pg.health, Health::kHealthy) << "the exit code follows the cluster, not the backups";
    EXPECT_EQ(pg.repos.size(), 1u);
  }
  EXPECT_EQ(BuildEtcdStatusView(fixtures::EtcdCluster(), {}, fixtures::EtcdBackups()).backups.count,
            2);
}

TEST(PostgresStatusViewTest, NamesTheDcsForEveryKind) {
  struct Case {
    Json dcs;
    const char* dcs_objects;  // status.patroni.dcsObjects; "" not recorded
    const char* want;
  } cases[] = {
      {Json::object(), "", "kubernetes"},
      {{{"type", "kubernetes"}}, "", "kubernetes"},
      {Json::object(), "ConfigMaps", "kubernetes (ConfigMaps)"},
      {Json::object(), "Endpoints", "kubernetes (Endpoints)"},
      {{{"type", "etcd"}, {"etcd", {{"endpoints", {"https://e1:2379", "https://e2:2379"}}}}},
       "",
       "etcd (https://e1:2379, https://e2:2379)"},
  };
  for (const Case& c : cases) {
    Json obj = fixtures::PostgresClusterJson();
    obj["spec"]["patroni"]["dcs"] = c.dcs;
    if (*c.dcs_objects != '\0') obj["status"]["patroni"]["dcsObjects"] = c.dcs_objects;
    EXPECT_EQ(BuildPostgresStatusView(fixtures::PostgresCluster(obj), {}, {}).dcs, c.want);
  }
}

}  // namespace
}  // namespace quorum::kubectl
