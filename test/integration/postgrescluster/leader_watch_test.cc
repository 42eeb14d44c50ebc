// The DCS leader watch end to end: real etcd, the real control plane and the
// real PostgresCluster controller. The member pods exist (the StatefulSet
// controller makes them) but stay Pending with no address, so no probe
// answers and nothing requeues the cluster: only the etcd watch on the leader
// key can wake the reconcile that takes `role=primary` from the member that
// no longer holds the leader key. (Without the watch this test fails: the
// label stays, see the commit that added it.)
#include "src/controllers/postgrescluster/leader_watch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/controllers/postgrescluster/reconciler.h"
#include "src/etcd/client.h"
#include "src/patroni/role.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/testenv.h"

namespace quorum::postgrescluster {
namespace {

using kube::Json;
using testenv::Eventually;

Json Cluster(const std::string& name, const std::string& etcd_url) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresCluster"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"postgresVersion", 15},
            {"instances",
             {{{"name", "main"},
               {"replicas", 1},
               {"dataVolumeClaimSpec",
                {{"accessModes", {"ReadWriteOnce"}},
                 {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
            {"patroni", {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {etcd_url}}}}}}}}}}};
}

class LeaderWatchTest : public testenv::ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    harness_ = std::make_unique<etcd::testing::EtcdHarness>(
        etcd::testing::HarnessOptions{.max_members = 1, .name_prefix = "dcs"});
    ASSERT_TRUE(harness_->Init().ok());
    auto e = etcd::Client::Create(harness_->Config());
    ASSERT_TRUE(e.ok());
    etcd_ = *std::move(e);
    ASSERT_TRUE(harness_->StartNewCluster(*etcd_, 1).ok()) << harness_->LogTail(0);
    StartControllers(
        {"etcd.aenix.io_etcdclusters.yaml", "postgres.quorum.dev_postgresclusters.yaml"},
        [this](kube::Client& client, runtime::Manager& manager) -> runtime::Controller& {
          reconciler_ = std::make_unique<PostgresClusterReconciler>(client, manager.cache(),
                                                                    manager.recorder());
          return SetupPostgresClusterController(manager, *reconciler_, 2);
        });
  }
  void TearDown() override {
    StopManager();
    reconciler_.reset();
    ControllerTest::TearDown();
  }

  std::string RoleOf(const std::string& pod) {
    auto got = client().Get({"", "v1", "pods"}, ns(), pod);
    if (!got.ok()) return "(no pod)";
    return (*got)["metadata"]
        .value("labels", Json::object())
        .value(std::string(patroni::kRoleLabel), "");
  }
  std::string LeaderKey(const std::string& cluster) {
    return "/quorum/" + ns() + "/" + cluster + "/leader";
  }

  std::unique_ptr<etcd::testing::EtcdHarness> harness_;
  std::unique_ptr<etcd::Client> etcd_;
  std::unique_ptr<PostgresClusterReconciler> reconciler_;
};

TEST_F(LeaderWatchTest, ALeaderKeyChangeInEtcdAloneMovesThePrimaryLabel) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("lw", harness_->ClientUrl(0))).ok());
  ASSERT_TRUE(Eventually([&] { return RoleOf("lw-main-0") != "(no pod)"; }, absl::Seconds(60)));
  ASSERT_TRUE(etcd_->Put(LeaderKey("lw"), "lw-main-0").ok());
  // The member was primary (as Patroni's callback would have labelled it).
  ASSERT_TRUE(
      client()
          .Patch({"", "v1", "pods"}, ns(), "lw-main-0", kube::PatchType::kMerge,
                 {{"metadata",
                   {{"labels", {{std::string(patroni::kRoleLabel), std::string("primary")}}}}}})
          .ok());
  const LeaderWatchSource* source = reconciler_->leader_watch();
  ASSERT_NE(source, nullptr);
  ASSERT_TRUE(Eventually([&] { return source->followers() == 1; }, absl::Seconds(30)));
  EXPECT_EQ(source->streams(), 1u);
  EXPECT_EQ(RoleOf("lw-main-0"), "primary") << "the leader keeps its label";

  // A second cluster on the same etcd shares the stream.
  ASSERT_TRUE(
      client().Create(kPostgresClusters, ns(), Cluster("lw2", harness_->ClientUrl(0))).ok());
  ASSERT_TRUE(Eventually([&] { return source->followers() == 2; }, absl::Seconds(30)));
  EXPECT_EQ(source->streams(), 1u);

  // The leader key moves in etcd, and nothing else happens in Kubernetes.
  ASSERT_TRUE(etcd_->Put(LeaderKey("lw"), "lw-main-1").ok());
  EXPECT_TRUE(Eventually([&] { return RoleOf("lw-main-0") != "primary"; }, absl::Seconds(30)))
      << "lw-main-0 still labelled " << RoleOf("lw-main-0");

  // Streams stop with the last cluster that follows them.
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "lw").ok());
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "lw2").ok());
  EXPECT_TRUE(Eventually([&] { return source->followers() == 0 && source->streams() == 0; },
                         absl::Seconds(60)))
      << source->followers() << " followers, " << source->streams() << " streams";
}

}  // namespace
}  // namespace quorum::postgrescluster
