// The PostgresCluster controller's integration fixture: the real control
// plane (no kubelet: pods stay Pending and no Patroni answers) with the
// controller running on a clock the test holds, and the helpers its tests
// share (a cluster, a Secret, owned objects, conditions, events, writes).
#ifndef QUORUM_TEST_INTEGRATION_CONTROLLERS_POSTGRESCLUSTER_FIXTURE_H_
#define QUORUM_TEST_INTEGRATION_CONTROLLERS_POSTGRESCLUSTER_FIXTURE_H_

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "src/controllers/postgrescluster/reconciler.h"
#include "test/integration/controllers/api_writes.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/testenv.h"

namespace quorum::postgrescluster {

using kube::Json;

inline Json Cluster(const std::string& name, Json patroni) {
  return {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
          {"kind", "PostgresCluster"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"postgresVersion", 15},
            {"instances",
             {{{"name", "main"},
               {"replicas", 2},
               {"dataVolumeClaimSpec",
                {{"accessModes", {"ReadWriteOnce"}},
                 {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}}},
            {"users", {{{"name", "app"}, {"databases", {"app"}}}}},
            {"patroni", std::move(patroni)}}}};
}

inline Json Secret(const std::string& name, std::map<std::string, std::string> data) {
  Json d = Json::object();
  for (const auto& [k, v] : data) d[k] = absl::Base64Escape(v);
  return {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}}}, {"data", d}};
}

class PostgresClusterControllerTest : public testenv::ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    StartControllers(
        {"etcd.aenix.io_etcdclusters.yaml", "postgres.quorum.dev_postgresclusters.yaml"},
        [this](kube::Client& client, runtime::Manager& manager) -> runtime::Controller& {
          reconciler_ = std::make_unique<PostgresClusterReconciler>(
              client, manager.cache(), manager.recorder(), nullptr, clock_);
          return SetupPostgresClusterController(manager, *reconciler_, 2);
        });
  }

  // Kind/name of every object in the namespace owned by `owner_uid`.
  std::set<std::string> Owned(const std::string& owner_uid) {
    std::set<std::string> out;
    const std::vector<std::pair<kube::GroupVersionResource, std::string>> kinds = {
        {kStatefulSets, "StatefulSet"},       {kServices, "Service"},
        {kConfigMaps, "ConfigMap"},           {kSecrets, "Secret"},
        {kServiceAccounts, "ServiceAccount"}, {kRoles, "Role"},
        {kRoleBindings, "RoleBinding"},       {kPdbs, "PodDisruptionBudget"},
        {kNetworkPolicies, "NetworkPolicy"}};
    for (const auto& [gvr, kind] : kinds) {
      auto list = client().List(gvr, ns());
      if (!list.ok()) continue;
      for (const Json& o : (*list)["items"]) {
        for (const Json& ref : o["metadata"].value("ownerReferences", Json::array())) {
          if (ref.value("uid", "") == owner_uid)
            out.insert(kind + "/" + o["metadata"].value("name", ""));
        }
      }
    }
    return out;
  }
  std::string Uid(const std::string& name) {
    auto got = client().Get(kPostgresClusters, ns(), name);
    return got.ok() ? (*got)["metadata"].value("uid", "") : "";
  }
  Json Condition(const std::string& name, const std::string& type) {
    auto got = client().Get(kPostgresClusters, ns(), name);
    if (!got.ok()) return nullptr;
    for (const Json& c :
         (*got).value("status", Json::object()).value("conditions", Json::array())) {
      if (c.value("type", "") == type) return c;
    }
    return nullptr;
  }
  bool HasWarning(const std::string& reason, const std::string& text) {
    auto events = client().List({"", "v1", "events"}, ns());
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) {
      if (e.value("type", "") == "Warning" && e.value("reason", "") == reason &&
          absl::StrContains(e.value("message", ""), text)) {
        return true;
      }
    }
    return false;
  }
  double Writes() { return testenv::ApiWrites(manager()); }
  // Once the cluster `name` has settled, a reconcile woken by a change that
  // touches nothing the controller owns writes nothing.
  void ExpectANoOpReconcileWritesNothing(const std::string& name) {
    ASSERT_TRUE(testenv::SettlesToZeroWrites(client(), manager(), controller(), kPostgresClusters,
                                             ns(), name))
        << "the controller kept writing";
    const std::string before = testenv::WriteSeries(manager());
    auto status = [&] {
      auto got = client().Get(kPostgresClusters, ns(), name);
      return got.ok() ? got->value("status", Json::object()) : Json::object();
    };
    const Json status_before = status();
    const std::optional<double> writes =
        testenv::WritesOfATouch(client(), manager(), controller(), kPostgresClusters, ns(), name);
    ASSERT_TRUE(writes.has_value()) << "no reconcile after the touch";
    EXPECT_EQ(*writes, 0) << "a no-op reconcile must not write; writes before:\n"
                          << before << "after:\n"
                          << testenv::WriteSeries(manager())
                          << "status change: " << Json::diff(status_before, status()).dump();
  }

  // A cluster an older operator made: its Patroni ConfigMap (use_endpoints:
  // true) exists, in the controller's cache, before the cluster is seen.
  void CreateClusterOnEndpoints(const std::string& name) {
    const Json old_config = {
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata",
         {{"name", name + "-patroni"},
          {"labels",
           {{"app.kubernetes.io/managed-by", "quorum-operator"},
            {"app.kubernetes.io/name", "postgres"},
            {"postgres.quorum.dev/cluster", name}}}}},
        {"data", {{"patroni.yaml", "kubernetes:\n  namespace: x\n  use_endpoints: true\n"}}}};
    ASSERT_TRUE(client().Create(kConfigMaps, ns(), old_config).ok());
    ASSERT_TRUE(testenv::Eventually(
        [&] { return manager().cache().Get(kConfigMaps, ns(), name + "-patroni") != nullptr; },
        absl::Seconds(30)));
    ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster(name, Json::object())).ok());
  }

  std::string DcsObjects(const std::string& name) {
    auto got = client().Get(kPostgresClusters, ns(), name);
    if (!got.ok()) return "";
    const Json status = got->value("status", Json::object());
    return status.value("patroni", Json::object()).value("dcsObjects", "");
  }

  // The reconciler's time: it stands still unless a test advances it.
  FakeClock clock_{absl::Now()};
  std::unique_ptr<PostgresClusterReconciler> reconciler_;
};

}  // namespace quorum::postgrescluster

#endif  // QUORUM_TEST_INTEGRATION_CONTROLLERS_POSTGRESCLUSTER_FIXTURE_H_
