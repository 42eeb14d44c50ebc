// The EtcdCluster's NetworkPolicy (network_policy.h) against the real API
// server: an aenix manifest gets one, it follows spec.networkPolicy edits and
// the PostgresClusters that come to reference the cluster and go, it is
// deleted when turned off and comes back when turned on, and a cluster with
// a PostgreSQL client still costs no write when nothing changed. That it is
// enforced is e2e_network_policy_test's part.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/controllers/etcdcluster/reconciler.h"
#include "src/kube/errors.h"
#include "test/examples/examples.h"
#include "test/integration/controllers/api_writes.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/testenv.h"

namespace quorum::etcdcluster {
namespace {

using kube::Json;
using testenv::Eventually;

constexpr char kOperatorNamespace[] = "quorum-system";

class EtcdNetworkPolicyTest : public testenv::ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    StartControllers(
        {"etcd.aenix.io_etcdclusters.yaml", "postgres.quorum.dev_postgresclusters.yaml"},
        [this](kube::Client& client, runtime::Manager& manager) -> runtime::Controller& {
          reconciler_ =
              std::make_unique<EtcdClusterReconciler>(client, manager.cache(), manager.recorder());
          reconciler_->SetOperatorNamespace(kOperatorNamespace);
          runtime::Controller& controller = SetupEtcdClusterController(manager, *reconciler_, 2);
          WatchPostgresClients(manager, controller);
          return controller;
        });
  }

  // The stored policy's rule for `port` (null when the policy or the rule
  // is missing).
  Json RuleFor(const std::string& name, int port) {
    auto policy = client().Get(kNetworkPolicies, ns(), name);
    if (!policy.ok()) return nullptr;
    for (const Json& rule : (*policy)["spec"].value("ingress", Json::array())) {
      if (rule["ports"][0]["port"] == port) return rule;
    }
    return nullptr;
  }

  bool ClientFromIs(const std::string& name, const Json& from) {
    const Json rule = RuleFor(name, 2379);
    return !rule.is_null() && rule.value("from", Json()) == from;
  }

  void Patch(const std::string& name, const Json& spec) {
    ASSERT_TRUE(
        client().Patch(kEtcdClusters, ns(), name, kube::PatchType::kMerge, {{"spec", spec}}).ok());
  }

  // A PostgresCluster whose Patroni keeps its leader lock in EtcdCluster
  // `etcd` (no PostgresCluster controller runs here: only the reference
  // matters).
  Json Postgres(const std::string& name, const std::string& etcd) {
    return {
        {"apiVersion", "postgres.quorum.dev/v1alpha1"},
        {"kind", "PostgresCluster"},
        {"metadata", {{"name", name}, {"namespace", ns()}}},
        {"spec",
         {{"postgresVersion", 17},
          {"patroni", {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", etcd}}}}}}}}},
          {"instances",
           Json::array({{{"name", "main"},
                         {"dataVolumeClaimSpec",
                          {{"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}})}}}};
  }

  std::unique_ptr<EtcdClusterReconciler> reconciler_;
};

const Json kNamespace = {{"podSelector", Json::object()}};
const Json kWeb = {{"podSelector", {{"matchLabels", {{"app", "web"}}}}}};

Json Members(const std::string& cluster) {
  return {{"podSelector",
           {{"matchLabels",
             {{"app.kubernetes.io/name", "etcd"}, {"app.kubernetes.io/instance", cluster}}}}}};
}
Json Operator() {
  return {{"podSelector", {{"matchLabels", {{"app.kubernetes.io/name", "quorum-operator"}}}}},
          {"namespaceSelector",
           {{"matchLabels", {{"kubernetes.io/metadata.name", kOperatorNamespace}}}}}};
}
Json BackupJobs(const std::string& cluster) {
  return {{"podSelector", {{"matchLabels", {{"etcd.aenix.io/snapshot-client", cluster}}}}}};
}
Json PostgresPods(const std::vector<std::string>& names) {
  return {{"podSelector",
           {{"matchExpressions", Json::array({{{"key", "postgres.quorum.dev/cluster"},
                                               {"operator", "In"},
                                               {"values", names}}})}}}};
}

TEST_F(EtcdNetworkPolicyTest, FollowsTheSpecAndItsPostgresClientsAndGoesWhenTurnedOff) {
  // An aenix manifest (no networkPolicy): the default policy.
  Json etcd = examples::EtcdClusterDesignExample();
  etcd["metadata"] = {{"name", "dcs"}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), etcd).ok());
  const Json members = Members("dcs"), op = Operator(), jobs = BackupJobs("dcs");
  ASSERT_TRUE(Eventually(
      [&] {
        return ClientFromIs("dcs", {kNamespace, members, op, jobs});
      },
      absl::Seconds(30)))
      << RuleFor("dcs", 2379).dump();
  auto policy = client().Get(kNetworkPolicies, ns(), "dcs");
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ((*policy)["metadata"]["ownerReferences"][0]["kind"], "EtcdCluster");
  EXPECT_EQ((*policy)["spec"]["policyTypes"], Json::array({"Ingress"}));
  EXPECT_EQ((*policy)["spec"]["podSelector"], members["podSelector"]);
  EXPECT_EQ(RuleFor("dcs", 2380)["from"], Json::array({members}));
  EXPECT_EQ(RuleFor("dcs", 2381)["from"], Json::array({members, op}));

  // clientFrom narrows the client port to the listed peers (and ours).
  Patch("dcs", {{"networkPolicy", {{"clientFrom", Json::array({kWeb})}}}});
  EXPECT_TRUE(Eventually(
      [&] {
        return ClientFromIs("dcs", {kWeb, members, op, jobs});
      },
      absl::Seconds(30)))
      << RuleFor("dcs", 2379).dump();

  // PostgresClusters that reference it are admitted as they come and go; one
  // that references another cluster is not.
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Postgres("billing", "dcs")).ok());
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Postgres("other", "elsewhere")).ok());
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Postgres("app", "dcs")).ok());
  EXPECT_TRUE(Eventually(
      [&] {
        return ClientFromIs("dcs", {kWeb, members, op, jobs, PostgresPods({"app", "billing"})});
      },
      absl::Seconds(30)))
      << RuleFor("dcs", 2379).dump();
  ASSERT_TRUE(
      testenv::SettlesToZeroWrites(client(), manager(), controller(), kEtcdClusters, ns(), "dcs"))
      << "the controller kept writing";
  const std::optional<double> writes =
      testenv::WritesOfATouch(client(), manager(), controller(), kEtcdClusters, ns(), "dcs");
  ASSERT_TRUE(writes.has_value()) << "no reconcile after the touch";
  EXPECT_EQ(*writes, 0) << "a no-op reconcile must not write";

  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "app").ok());
  EXPECT_TRUE(Eventually(
      [&] {
        return ClientFromIs("dcs", {kWeb, members, op, jobs, PostgresPods({"billing"})});
      },
      absl::Seconds(30)))
      << RuleFor("dcs", 2379).dump();

  // Turned off: deleted. On again: back.
  Patch("dcs", {{"networkPolicy", {{"enabled", false}}}});
  EXPECT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kNetworkPolicies, ns(), "dcs").status()); },
      absl::Seconds(30)));
  Patch("dcs", {{"networkPolicy", {{"enabled", true}, {"clientFrom", nullptr}}}});
  EXPECT_TRUE(Eventually(
      [&] {
        return ClientFromIs("dcs", {kNamespace, members, op, jobs, PostgresPods({"billing"})});
      },
      absl::Seconds(30)))
      << RuleFor("dcs", 2379).dump();
}

// A policy of the same name that the cluster does not own (a PostgresCluster's
// of the same name, cached because Quorum manages it) is never deleted.
TEST_F(EtcdNetworkPolicyTest, TurningItOffLeavesAnotherOwnersPolicyAlone) {
  Json etcd = examples::EtcdClusterDesignExample();
  etcd["metadata"] = {{"name", "shared"}};
  etcd["spec"]["networkPolicy"] = {{"enabled", false}};
  const Json foreign = {
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "NetworkPolicy"},
      {"metadata",
       {{"name", "shared"}, {"labels", {{"app.kubernetes.io/managed-by", "quorum-operator"}}}}},
      {"spec", {{"podSelector", {{"matchLabels", {{"app", "pg"}}}}}}}};
  ASSERT_TRUE(client().Create(kNetworkPolicies, ns(), foreign).ok());
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), etcd).ok());
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "shared").ok(); },
                         absl::Seconds(30)));
  ASSERT_TRUE(testenv::SettlesToZeroWrites(client(), manager(), controller(), kEtcdClusters, ns(),
                                           "shared"));
  EXPECT_TRUE(client().Get(kNetworkPolicies, ns(), "shared").ok());
}

}  // namespace
}  // namespace quorum::etcdcluster
