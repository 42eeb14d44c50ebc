// The EtcdBackup controller's start bound on the real control plane, its
// clock a FakeClock: a backup whose cluster never appears stays Pending
// until api::kBackupStartTimeout of the operator's time has passed since its
// creation, then is Failed, once. Nothing waits for the bound's ten minutes.
#include <gtest/gtest.h>

#include "src/controllers/etcdbackup/reconciler.h"
#include "src/runtime/conditions.h"
#include "test/integration/controllers/backup_controller_fixture.h"

namespace quorum::etcdbackup {
namespace {

using kube::Json;
using testenv::Eventually;

class EtcdBackupStartTimeoutTest : public testenv::BackupControllerTest {
 protected:
  void SetUp() override {
    BackupControllerTest::SetUp();
    Start<EtcdBackupReconciler>(
        {"etcd.aenix.io_etcdclusters.yaml", "etcd.aenix.io_etcdbackups.yaml"},
        [](kube::Client& client, runtime::Manager& manager, Clock& clock) {
          return std::make_unique<EtcdBackupReconciler>(client, manager.cache(), manager.recorder(),
                                                        "operator:test", clock);
        },
        [](runtime::Manager& manager, EtcdBackupReconciler& r) -> runtime::Controller& {
          return SetupEtcdBackupController(manager, r, 1);
        });
  }
};

TEST_F(EtcdBackupStartTimeoutTest, ABackupWhoseClusterNeverComesFailsWhenTheBoundRunsOut) {
  const Json backup = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                       {"kind", "EtcdBackup"},
                       {"metadata", {{"name", "orphan"}}},
                       {"spec",
                        {{"clusterRef", {{"name", "missing"}}},
                         {"destination", {{"pvc", {{"claimName", "backups"}}}}}}}};
  ASSERT_TRUE(client().Create(kEtcdBackups, ns(), backup).ok());
  ASSERT_TRUE(
      Eventually([&] { return Reason(kEtcdBackups, "orphan") == "Pending/ClusterNotFound"; },
                 absl::Seconds(30)))
      << Reason(kEtcdBackups, "orphan");

  ASSERT_TRUE(AdvanceAndReconcile(absl::Minutes(9), kEtcdBackups, "orphan"));
  EXPECT_EQ(Reason(kEtcdBackups, "orphan"), "Pending/ClusterNotFound") << "within the bound";

  ASSERT_TRUE(AdvanceAndReconcile(absl::Seconds(90), kEtcdBackups, "orphan"));
  ASSERT_TRUE(Eventually([&] { return Reason(kEtcdBackups, "orphan") == "Failed/StartTimeout"; },
                         absl::Seconds(30)))
      << Reason(kEtcdBackups, "orphan");
  const Json failed = (*client().Get(kEtcdBackups, ns(), "orphan"))["status"]["conditions"][1];
  EXPECT_EQ(failed["status"], "True");
  EXPECT_EQ(failed["lastTransitionTime"], runtime::Rfc3339(clock_.Now()))
      << "the transition is stamped with the operator's clock";
  EXPECT_FALSE(client().Get(kJobs, ns(), "orphan-snapshot").ok());
}

}  // namespace
}  // namespace quorum::etcdbackup
