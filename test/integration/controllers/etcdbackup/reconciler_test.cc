// The EtcdBackup controller against the real control plane (no kubelet: the
// Job's pod never runs; test/integration/backup runs the snapshot itself).
// Checked here: the CRD's rules on a real API server, Pending while the
// cluster is missing or not Ready (woken by the cluster's watch, not by
// polling), the Job once it is Ready, and zero writes after that.
#include "src/controllers/etcdbackup/reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "test/integration/controllers/api_writes.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/testenv.h"

namespace quorum::etcdbackup {
namespace {

using kube::Json;
using testenv::Eventually;

const kube::GroupVersionResource kClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};

Json Backup(const std::string& name, const Json& destination) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdBackup"},
          {"metadata", {{"name", name}}},
          {"spec", {{"clusterRef", {{"name", "main"}}}, {"destination", destination}}}};
}

const Json kPvc = {{"pvc", {{"claimName", "backups"}, {"subPath", "etcd"}}}};

class EtcdBackupControllerTest : public testenv::ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    StartControllers(
        {"etcd.aenix.io_etcdclusters.yaml", "etcd.aenix.io_etcdbackups.yaml"},
        [this](kube::Client& client, runtime::Manager& manager) -> runtime::Controller& {
          reconciler_ = std::make_unique<EtcdBackupReconciler>(client, manager.cache(),
                                                               manager.recorder(), "operator:test");
          return SetupEtcdBackupController(manager, *reconciler_, 2);
        });
  }

  std::string Reason(const std::string& name) {
    absl::StatusOr<Json> b = client().Get(kEtcdBackups, ns(), name);
    if (!b.ok()) return "";
    const Json status = b->value("status", Json::object());
    const Json conditions = status.value("conditions", Json::array());
    return status.value("phase", "") + "/" +
           (conditions.empty() ? "" : conditions[0].value("reason", ""));
  }

  std::unique_ptr<EtcdBackupReconciler> reconciler_;
};

TEST_F(EtcdBackupControllerTest, TheApiServerRefusesWhatTheCrdForbids) {
  Json both = Backup("both", kPvc);
  both["spec"]["destination"]["s3"] = {
      {"endpoint", "https://s3"}, {"bucket", "b"}, {"credentialsSecretRef", {{"name", "c"}}}};
  absl::StatusOr<Json> r = client().Create(kEtcdBackups, ns(), both);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "set exactly one of s3 and pvc"))
      << r.status();
  ASSERT_TRUE(client().Create(kEtcdBackups, ns(), Backup("fixed", kPvc)).ok());
  r = client().Patch(kEtcdBackups, ns(), "fixed", kube::PatchType::kMerge,
                     {{"spec", {{"clusterRef", {{"name", "other"}}}}}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "spec is immutable")) << r.status();
}

TEST_F(EtcdBackupControllerTest, WaitsForTheClusterThenCreatesOneJobAndThenWritesNothing) {
  ASSERT_TRUE(client().Create(kEtcdBackups, ns(), Backup("nightly", kPvc)).ok());
  EXPECT_TRUE(
      Eventually([&] { return Reason("nightly") == "Pending/ClusterNotFound"; }, absl::Seconds(30)))
      << Reason("nightly");

  const Json cluster = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                        {"kind", "EtcdCluster"},
                        {"metadata", {{"name", "main"}}},
                        {"spec", {{"replicas", 1}, {"storage", {{"emptyDir", Json::object()}}}}}};
  ASSERT_TRUE(client().Create(kClusters, ns(), cluster).ok());
  EXPECT_TRUE(
      Eventually([&] { return Reason("nightly") == "Pending/ClusterNotReady"; }, absl::Seconds(30)))
      << Reason("nightly");
  EXPECT_FALSE(client().Get(kJobs, ns(), "nightly-snapshot").ok());

  // A quorum with one member of three down (as the EtcdCluster controller
  // would say: Ready is False) is enough: the Job appears (issue 33).
  const auto condition = [](const char* type, const char* status) {
    return Json{{"type", type},
                {"status", status},
                {"reason", "Test"},
                {"message", "test"},
                {"lastTransitionTime", "2026-01-01T00:00:00Z"}};
  };
  const auto member = [](const char* name, bool healthy) {
    return Json{{"name", name}, {"healthy", healthy}};
  };
  absl::StatusOr<Json> patched = client().Patch(
      kClusters, ns(), "main", kube::PatchType::kMerge,
      {{"status",
        {{"conditions",
          Json::array({condition("Initialized", "True"), condition("Ready", "False")})},
         {"members", Json::array({member("main-0", true), member("main-1", false),
                                  member("main-2", true)})}}}},
      {.subresource = "status"});
  ASSERT_TRUE(patched.ok()) << patched.status();
  ASSERT_TRUE(Eventually([&] { return client().Get(kJobs, ns(), "nightly-snapshot").ok(); },
                         absl::Seconds(30)));
  const Json job = *client().Get(kJobs, ns(), "nightly-snapshot");
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["kind"], "EtcdBackup");
  EXPECT_EQ(job["spec"]["template"]["spec"]["containers"][0]["image"], "operator:test");
  // Started/JobCreated when it made the Job, Started/JobRunning once the
  // cache shows it: the steady state while the pod runs.
  EXPECT_TRUE(
      Eventually([&] { return Reason("nightly") == "Started/JobRunning"; }, absl::Seconds(30)))
      << Reason("nightly");

  // Converged: nothing more to write while the Job runs.
  ASSERT_TRUE(testenv::SettlesToZeroWrites(client(), manager(), controller(), kEtcdBackups, ns(),
                                           "nightly"))
      << "the controller kept writing";
  const std::optional<double> writes =
      testenv::WritesOfATouch(client(), manager(), controller(), kEtcdBackups, ns(), "nightly");
  ASSERT_TRUE(writes.has_value()) << "no reconcile after the touch";
  EXPECT_EQ(*writes, 0) << "a no-op reconcile must not write";
}

}  // namespace
}  // namespace quorum::etcdbackup
