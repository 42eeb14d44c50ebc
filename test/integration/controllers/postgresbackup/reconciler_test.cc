// The PostgresBackup controller on the real control plane (no kubelet: no
// Job runs), its clock a FakeClock: Pending while its cluster is missing,
// Failed once api::kBackupStartTimeout of the operator's time has passed
// since its creation, with no wait for the bound's ten minutes; a backup
// admission would refuse is Failed at once; a finished backup makes zero
// writes. A backup of a cluster with a member down (Ready=False) starts once
// a primary runs, its Job naming only the ready members (issue 33): the
// member pods are a real StatefulSet's (the control plane's
// kube-controller-manager makes them and their revision labels; with no
// kubelet, the test writes their readiness and role label).
#include "src/controllers/postgresbackup/reconciler.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "absl/strings/match.h"
#include "src/runtime/conditions.h"
#include "test/integration/controllers/backup_controller_fixture.h"

namespace quorum::postgresbackup {
namespace {

using kube::Json;
using testenv::Eventually;

Json Backup(const std::string& name, const std::string& cluster = "missing") {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresBackup"},
          {"metadata", {{"name", name}}},
          {"spec", {{"clusterRef", {{"name", cluster}}}, {"repoName", "repo1"}}}};
}

class PostgresBackupControllerTest : public testenv::BackupControllerTest {
 protected:
  void SetUp() override {
    BackupControllerTest::SetUp();
    Start<PostgresBackupReconciler>(
        {"postgres.quorum.dev_postgresclusters.yaml", "postgres.quorum.dev_postgresbackups.yaml"},
        [](kube::Client& client, runtime::Manager& manager, Clock& clock) {
          return std::make_unique<PostgresBackupReconciler>(client, manager.cache(),
                                                            manager.recorder(), clock);
        },
        [](runtime::Manager& manager, PostgresBackupReconciler& r) -> runtime::Controller& {
          return SetupPostgresBackupController(manager, r, 1);
        });
  }
};

TEST_F(PostgresBackupControllerTest, ABackupWhoseClusterNeverComesFailsWhenTheBoundRunsOut) {
  ASSERT_TRUE(client().Create(kPostgresBackups, ns(), Backup("orphan")).ok());
  ASSERT_TRUE(
      Eventually([&] { return Reason(kPostgresBackups, "orphan") == "Pending/ClusterNotFound"; },
                 absl::Seconds(30)))
      << Reason(kPostgresBackups, "orphan");

  ASSERT_TRUE(AdvanceAndReconcile(absl::Minutes(9), kPostgresBackups, "orphan"));
  EXPECT_EQ(Reason(kPostgresBackups, "orphan"), "Pending/ClusterNotFound") << "within the bound";

  ASSERT_TRUE(AdvanceAndReconcile(absl::Seconds(90), kPostgresBackups, "orphan"));
  ASSERT_TRUE(
      Eventually([&] { return Reason(kPostgresBackups, "orphan") == "Failed/StartTimeout"; },
                 absl::Seconds(30)))
      << Reason(kPostgresBackups, "orphan");
  const Json failed = (*client().Get(kPostgresBackups, ns(), "orphan"))["status"]["conditions"][1];
  EXPECT_EQ(failed["status"], "True");
  EXPECT_EQ(failed["lastTransitionTime"], runtime::Rfc3339(clock_.Now()))
      << "the transition is stamped with the operator's clock";
  EXPECT_FALSE(client().Get(kJobs, ns(), "orphan-backup").ok());

  // Final: a reconcile of a Failed backup writes nothing.
  const std::optional<double> writes =
      testenv::WritesOfATouch(client(), manager(), controller(), kPostgresBackups, ns(), "orphan");
  ASSERT_TRUE(writes.has_value()) << "no reconcile after the touch";
  EXPECT_EQ(*writes, 0) << "a finished backup must not write";
}

Json Hippo() {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresCluster"},
          {"metadata", {{"name", "hippo"}}},
          {"spec",
           {{"postgresVersion", 15},
            {"instances", Json::array({{{"name", "main"},
                                        {"replicas", 2},
                                        {"dataVolumeClaimSpec",
                                         {{"accessModes", Json::array({"ReadWriteOnce"})},
                                          {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})},
            {"backups",
             {{"pgbackrest",
               {{"repos",
                 Json::array(
                     {{{"name", "repo1"},
                       {"s3",
                        {{"bucket", "b"}, {"endpoint", "s3.example"}, {"region", "r"}}}}})}}}}}}}};
}

// hippo's member StatefulSet as the operator labels it (the cache's scope
// and the backup controller's reading), OnDelete, both pods at once.
Json HippoMembers() {
  const Json labels = {{"app.kubernetes.io/name", "postgres"},
                       {"app.kubernetes.io/instance", "hippo"},
                       {"app.kubernetes.io/managed-by", "quorum-operator"},
                       {"postgres.quorum.dev/instance-set", "main"}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", {{"name", "hippo-main"}, {"labels", labels}}},
          {"spec",
           {{"replicas", 2},
            {"serviceName", "hippo-pods"},
            {"podManagementPolicy", "Parallel"},
            {"updateStrategy", {{"type", "OnDelete"}}},
            {"selector", {{"matchLabels", labels}}},
            {"template",
             {{"metadata", {{"labels", labels}}},
              {"spec",
               {{"containers",
                 Json::array({{{"name", "database"}, {"image", "postgres:test"}}})}}}}}}}};
}

TEST_F(PostgresBackupControllerTest, ABackupRunsFromTheReadyMembersWhileOneIsDown) {
  ASSERT_TRUE(client().Create(controllers::kPostgresClusters, ns(), Hippo()).ok());
  ASSERT_TRUE(client().Create(kube::kStatefulSets, ns(), HippoMembers()).ok());
  std::string revision;
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<Json> sts = client().Get(kube::kStatefulSets, ns(), "hippo-main");
        if (!sts.ok()) return false;
        revision = sts->value("status", Json::object()).value("updateRevision", "");
        return !revision.empty() && client().Get(kube::kPods, ns(), "hippo-main-0").ok() &&
               client().Get(kube::kPods, ns(), "hippo-main-1").ok();
      },
      absl::Seconds(60)))
      << "the StatefulSet controller made no pods";
  auto set_ready = [&](const std::string& pod, bool ready) {
    const Json condition = {{"type", "Ready"},
                            {"status", ready ? "True" : "False"},
                            {"lastTransitionTime", "2026-01-01T00:00:00Z"}};
    absl::StatusOr<Json> patched = client().Patch(
        kube::kPods, ns(), pod, kube::PatchType::kMerge,
        {{"status", {{"conditions", Json::array({condition})}}}}, {.subresource = "status"});
    ASSERT_TRUE(patched.ok()) << patched.status();
  };
  // The cluster's status as its operator writes it: a member down, so not Ready.
  auto write_cluster_status = [&](const std::string& message) {
    absl::StatusOr<Json> cluster = client().Get(controllers::kPostgresClusters, ns(), "hippo");
    ASSERT_TRUE(cluster.ok());
    absl::StatusOr<Json> patched = client().Patch(
        controllers::kPostgresClusters, ns(), "hippo", kube::PatchType::kMerge,
        {{"status",
          {{"observedGeneration", (*cluster)["metadata"]["generation"]},
           {"conditions", Json::array({{{"type", "Ready"},
                                        {"status", "False"},
                                        {"reason", "InstancesNotReady"},
                                        {"message", message},
                                        {"lastTransitionTime", "2026-01-01T00:00:00Z"}}})},
           {"instances", Json::array({{{"name", "main"},
                                       {"replicas", 2},
                                       {"readyReplicas", 1},
                                       {"updatedReplicas", 2}}})}}}},
        {.subresource = "status"});
    ASSERT_TRUE(patched.ok()) << patched.status();
  };
  set_ready("hippo-main-0", true);
  set_ready("hippo-main-1", false);
  ASSERT_NO_FATAL_FAILURE(write_cluster_status("1 of 2 members ready"));

  // No member labelled primary yet: it waits, saying so.
  ASSERT_TRUE(client().Create(kPostgresBackups, ns(), Backup("one-down", "hippo")).ok());
  ASSERT_TRUE(
      Eventually([&] { return Reason(kPostgresBackups, "one-down") == "Pending/NoRunningPrimary"; },
                 absl::Seconds(30)))
      << Reason(kPostgresBackups, "one-down");

  // hippo-main-0 runs as the primary (Patroni's role label); hippo-main-1
  // stays down. The cluster is still not Ready: the backup starts anyway.
  absl::StatusOr<Json> labelled =
      client().Patch(kube::kPods, ns(), "hippo-main-0", kube::PatchType::kMerge,
                     {{"metadata", {{"labels", {{"role", "primary"}}}}}});
  ASSERT_TRUE(labelled.ok()) << labelled.status();
  ASSERT_NO_FATAL_FAILURE(write_cluster_status("1 of 2 members ready, primary hippo-main-0"));
  ASSERT_TRUE(Eventually([&] { return client().Get(kJobs, ns(), "one-down-backup").ok(); },
                         absl::Seconds(30)))
      << Reason(kPostgresBackups, "one-down");
  // The Job first, then the status that names it (the same reconcile's last write).
  EXPECT_TRUE(
      Eventually([&] { return absl::StartsWith(Reason(kPostgresBackups, "one-down"), "Started/"); },
                 absl::Seconds(30)))
      << Reason(kPostgresBackups, "one-down");
  const Json job = *client().Get(kJobs, ns(), "one-down-backup");
  std::map<std::string, std::string> env;
  for (const Json& e : job["spec"]["template"]["spec"]["containers"][0]["env"]) {
    env[e.value("name", "")] = e.value("value", "");
  }
  EXPECT_EQ(env["PGBACKREST_PG1_HOST"], "hippo-main-0.hippo-pods." + ns() + ".svc");
  EXPECT_EQ(env.count("PGBACKREST_PG2_HOST"), 0u) << "the member that is down is a host";
  EXPECT_EQ(env["PGBACKREST_BACKUP_STANDBY"], "n");
}

}  // namespace
}  // namespace quorum::postgresbackup
