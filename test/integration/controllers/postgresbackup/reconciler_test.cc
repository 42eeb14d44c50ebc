// The PostgresBackup controller on the real control plane (no kubelet: no
// Job runs), its clock a FakeClock: Pending while its cluster is missing,
// Failed once api::kBackupStartTimeout of the operator's time has passed
// since its creation, with no wait for the bound's ten minutes; a backup
// admission would refuse is Failed at once; a finished backup makes zero
// writes.
#include "src/controllers/postgresbackup/reconciler.h"

#include <gtest/gtest.h>

#include "src/runtime/conditions.h"
#include "test/integration/controllers/backup_controller_fixture.h"

namespace quorum::postgresbackup {
namespace {

using kube::Json;
using testenv::Eventually;

Json Backup(const std::string& name) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresBackup"},
          {"metadata", {{"name", name}}},
          {"spec", {{"clusterRef", {{"name", "missing"}}}, {"repoName", "repo1"}}}};
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

}  // namespace
}  // namespace quorum::postgresbackup
