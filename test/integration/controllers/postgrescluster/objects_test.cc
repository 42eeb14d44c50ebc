// The PostgresCluster controller's objects against the real control plane
// (no kubelet: pods stay Pending and no Patroni answers): the exact set for
// each DCS (no leader-lease/config Services and no Endpoints rights with
// etcd), Patroni's ConfigMaps or Endpoints kept as the cluster began,
// instance sets removed, a refused apply reported, the NetworkPolicy,
// volumes grown, and zero writes on a no-op reconcile.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "src/kube/errors.h"
#include "test/integration/controllers/postgrescluster/fixture.h"
#include "test/integration/controllers/refuse_budgets.h"

namespace quorum::postgrescluster {
namespace {

using kube::Json;
using testenv::Eventually;

TEST_F(PostgresClusterControllerTest, KubernetesDcsProducesItsObjects) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("hippo", Json::object())).ok());
  const std::string uid = Uid("hippo");
  const std::set<std::string> want = {"StatefulSet/hippo-main",
                                      "Service/hippo",
                                      "Service/hippo-replicas",
                                      "Service/hippo-pods",
                                      "ConfigMap/hippo-patroni",
                                      "Secret/hippo-superuser",
                                      "Secret/hippo-replication",
                                      "Secret/hippo-user-app",
                                      "ServiceAccount/hippo-instance",
                                      "Role/hippo-instance",
                                      "RoleBinding/hippo-instance",
                                      "PodDisruptionBudget/hippo",
                                      "Secret/hippo-ca",
                                      "Secret/hippo-tls",
                                      "Secret/hippo-patroni-api",
                                      "Secret/hippo-monitoring",  // the exporter's role
                                      "NetworkPolicy/hippo"};
  ASSERT_TRUE(Eventually([&] { return Owned(uid) == want; }, absl::Seconds(30)))
      << testing::PrintToString(Owned(uid));
  // Issue 36.5: a new cluster's Patroni keeps its state in ConfigMaps.
  auto role = client().Get(kRoles, ns(), "hippo-instance");
  ASSERT_TRUE(role.ok());
  EXPECT_TRUE(absl::StrContains(role->dump(), "\"configmaps\""));
  EXPECT_FALSE(absl::StrContains(role->dump(), "\"endpoints\""));
  auto primary = client().Get(kServices, ns(), "hippo");
  EXPECT_EQ((*primary)["spec"]["selector"]["role"], "primary") << "no addresses in ConfigMaps";
  auto cm = client().Get(kConfigMaps, ns(), "hippo-patroni");
  EXPECT_TRUE(absl::StrContains((*cm)["data"]["patroni.yaml"].get<std::string>(),
                                "\n  use_endpoints: false\n"));
  Json dcs_ready;
  ASSERT_TRUE(Eventually([&] { return !(dcs_ready = Condition("hippo", "DCSReady")).is_null(); },
                         absl::Seconds(30)));
  EXPECT_EQ(dcs_ready["status"], "True");
  EXPECT_EQ(Condition("hippo", "DCSSecure")["reason"], "KubernetesApi");
  EXPECT_EQ(Condition("hippo", "Ready")["reason"], "NoPrimary");
  auto stored = client().Get(kPostgresClusters, ns(), "hippo");
  EXPECT_EQ((*stored)["status"]["patroni"]["dcsObjects"], "ConfigMaps");
}

TEST_F(PostgresClusterControllerTest, PatroniConfigMapsGoWithTheCluster) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("lock", Json::object())).ok());
  const std::string uid = Uid("lock");
  ASSERT_TRUE(Eventually([&] { return Owned(uid).count("ConfigMap/lock-patroni") == 1; },
                         absl::Seconds(30)));
  // What Patroni writes: the cluster's common labels plus its scope label.
  const Json leader = {{"apiVersion", "v1"},
                       {"kind", "ConfigMap"},
                       {"metadata",
                        {{"name", "lock-leader"},
                         {"labels",
                          {{"app.kubernetes.io/instance", "lock"},
                           {"app.kubernetes.io/managed-by", "quorum-operator"},
                           {"app.kubernetes.io/name", "postgres"},
                           {"postgres.quorum.dev/cluster", "lock"}}},
                         {"annotations", {{"leader", "lock-main-0"}, {"ttl", "30"}}}}}};
  ASSERT_TRUE(client().Create(kConfigMaps, ns(), leader).ok());
  Json refs;
  ASSERT_TRUE(Eventually(
      [&] {
        auto got = client().Get(kConfigMaps, ns(), "lock-leader");
        refs = got.ok() ? (*got)["metadata"].value("ownerReferences", Json::array()) : Json();
        return refs.is_array() && refs.size() == 1;
      },
      absl::Seconds(30)));
  EXPECT_EQ(refs[0]["uid"], uid);
  EXPECT_EQ(refs[0]["controller"], false);
  auto again = client().Get(kConfigMaps, ns(), "lock-leader");
  EXPECT_EQ((*again)["metadata"]["annotations"]["leader"], "lock-main-0") << "Patroni's data kept";
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "lock").ok());
  EXPECT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kConfigMaps, ns(), "lock-leader").status()); },
      absl::Seconds(60)))
      << "garbage-collected with the cluster";
}

TEST_F(PostgresClusterControllerTest, AClusterOnEndpointsStaysOnEndpoints) {
  ASSERT_NO_FATAL_FAILURE(CreateClusterOnEndpoints("old"));
  ASSERT_TRUE(Eventually([&] { return DcsObjects("old") == "Endpoints"; }, absl::Seconds(30)));
  ASSERT_TRUE(Eventually([&] { return client().Get(kServices, ns(), "old-config").ok(); },
                         absl::Seconds(30)))
      << "the Service that keeps Patroni's config Endpoints";
  auto primary = client().Get(kServices, ns(), "old");
  ASSERT_TRUE(primary.ok());
  EXPECT_FALSE((*primary)["spec"].contains("selector")) << "Patroni keeps these Endpoints";
  auto role = client().Get(kRoles, ns(), "old-instance");
  ASSERT_TRUE(role.ok());
  EXPECT_TRUE(absl::StrContains(role->dump(), "\"endpoints\""));
  EXPECT_FALSE(absl::StrContains(role->dump(), "\"configmaps\""));
  auto cm = client().Get(kConfigMaps, ns(), "old-patroni");
  EXPECT_TRUE(absl::StrContains((*cm)["data"]["patroni.yaml"].get<std::string>(),
                                "\n  use_endpoints: true\n"));
}

TEST_F(PostgresClusterControllerTest, AMoveToConfigMapsHoldsOnlyWithEveryMemberStopped) {
  ASSERT_NO_FATAL_FAILURE(CreateClusterOnEndpoints("mv"));
  ASSERT_TRUE(Eventually([&] { return DcsObjects("mv") == "Endpoints"; }, absl::Seconds(30)));
  auto pods = [&] {
    auto list = client().List(kPods, ns(), {.label_selector = "postgres.quorum.dev/cluster=mv"});
    return list.ok() ? (*list)["items"].size() : size_t{99};
  };
  ASSERT_TRUE(Eventually([&] { return pods() == 2; }, absl::Seconds(60)));
  const Json record = {{"status", {{"patroni", {{"dcsObjects", "ConfigMaps"}}}}}};
  auto patch_status = [&] {
    return client().Patch(kPostgresClusters, ns(), "mv", kube::PatchType::kMerge, record,
                          {.subresource = "status"});
  };
  ASSERT_TRUE(patch_status().ok());
  EXPECT_TRUE(Eventually([&] { return DcsObjects("mv") == "Endpoints"; }, absl::Seconds(30)))
      << "put back while members run";
  auto kept = client().Get(kConfigMaps, ns(), "mv-patroni");
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(
      absl::StrContains((*kept)["data"].value("patroni.yaml", ""), "\n  use_endpoints: true\n"));

  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "mv", kube::PatchType::kJson,
                         Json::parse(R"([{"op":"replace","path":"/spec/instances/0/replicas",
                                          "value":0}])"))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return pods() == 0; }, absl::Seconds(60)));
  // The operator's cache may still hold a pod when the record lands (then it
  // is put back, as above): the user records it again, as docs/operations.md
  // says, until it holds.
  ASSERT_TRUE(Eventually(
      [&] {
        if (DcsObjects("mv") != "ConfigMaps" && !patch_status().ok()) return false;
        auto cm = client().Get(kConfigMaps, ns(), "mv-patroni");
        return cm.ok() && absl::StrContains((*cm)["data"].value("patroni.yaml", ""),
                                            "\n  use_endpoints: false\n");
      },
      absl::Seconds(30)));
  EXPECT_EQ(DcsObjects("mv"), "ConfigMaps");
  auto primary = client().Get(kServices, ns(), "mv");
  ASSERT_TRUE(primary.ok());
  EXPECT_EQ((*primary)["spec"]["selector"]["role"], "primary");
  auto role = client().Get(kRoles, ns(), "mv-instance");
  ASSERT_TRUE(role.ok());
  EXPECT_TRUE(absl::StrContains(role->dump(), "\"configmaps\""));
}

TEST_F(PostgresClusterControllerTest, RemovingAnInstanceSetDeletesItsStatefulSet) {
  Json cluster = Cluster("sets", Json::object());
  Json extra = cluster["spec"]["instances"][0];
  extra["name"] = "extra";
  cluster["spec"]["instances"].push_back(extra);
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), cluster).ok());
  const auto replicas = [&](const std::string& name) -> std::optional<int> {
    auto sts = client().Get(kStatefulSets, ns(), name);
    if (!sts.ok()) return std::nullopt;
    return (*sts)["spec"].value("replicas", -1);
  };
  const auto pods_of = [&](const std::string& sts) {
    auto list = client().List(kPods, ns());
    int n = 0;
    if (list.ok()) {
      for (const Json& pod : (*list)["items"]) {
        if (absl::StartsWith(pod["metadata"].value("name", ""), sts + "-")) ++n;
      }
    }
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return pods_of("sets-main") == 2 && pods_of("sets-extra") == 2; },
                         absl::Seconds(60)));

  Json instances = cluster["spec"]["instances"];
  instances.erase(1);
  instances[0]["replicas"] = 1;
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "sets", kube::PatchType::kMerge,
                         {{"spec", {{"instances", instances}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] { return !replicas("sets-extra").has_value(); }, absl::Seconds(60)))
      << "the removed set's StatefulSet still exists";
  EXPECT_TRUE(Eventually([&] { return replicas("sets-main") == 1; }, absl::Seconds(60)));
  auto claims = client().List(kube::kPvcs, ns());
  ASSERT_TRUE(claims.ok());
  std::set<std::string> names;
  for (const Json& c : (*claims)["items"]) names.insert(c["metadata"].value("name", ""));
  EXPECT_TRUE(names.contains("pgdata-sets-extra-0") && names.contains("pgdata-sets-main-1"))
      << "claims are kept: " << testing::PrintToString(names);
}

TEST_F(PostgresClusterControllerTest, ARefusedApplyIsReportedInStatusAndEvented) {
  testenv::BudgetsRefused policy(client(), ns());
  ASSERT_TRUE(policy.ok()) << "the admission policy never took effect";
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("refused", Json::object())).ok());
  Json ready;
  EXPECT_TRUE(Eventually(
      [&] {
        ready = Condition("refused", "Ready");
        return !ready.is_null() && absl::StrContains(ready.value("message", ""), "refused");
      },
      absl::Seconds(30)))
      << ready.dump();
  EXPECT_EQ(ready.value("status", ""), "False") << ready.dump();
  EXPECT_TRUE(absl::StrContains(ready.value("message", ""),
                                "the API server refused PodDisruptionBudget refused: "))
      << ready.dump();
  EXPECT_TRUE(absl::StrContains(ready.value("message", ""), "no budgets here")) << ready.dump();
  EXPECT_TRUE(Eventually([&] { return HasWarning("ApplyRefused", "PodDisruptionBudget refused"); },
                         absl::Seconds(30)))
      << "no ApplyRefused event";
}

TEST_F(PostgresClusterControllerTest, NetworkPolicyFollowsPostgresFrom) {
  Json pg = Cluster("np", Json::object());
  const Json web = {{"podSelector", {{"matchLabels", {{"app", "web"}}}}}};
  pg["spec"]["networkPolicy"] = {{"postgresFrom", Json::array({web})}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), pg).ok());
  auto postgres_from = [&]() -> Json {
    absl::StatusOr<Json> policy = client().Get(kNetworkPolicies, ns(), "np");
    if (!policy.ok()) return nullptr;
    for (const Json& rule : (*policy)["spec"]["ingress"]) {
      if (rule["ports"][0]["port"] == 5432) return rule.value("from", Json());
    }
    return nullptr;
  };
  Json from;
  ASSERT_TRUE(Eventually([&] { return (from = postgres_from()).is_array(); }, absl::Seconds(30)));
  ASSERT_EQ(from.size(), 3u) << from;  // web, the members, the operator
  EXPECT_EQ(from[0], web);

  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "np", kube::PatchType::kMerge,
                         {{"spec", {{"networkPolicy", {{"postgresFrom", Json::array()}}}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] { return postgres_from().size() == 2; }, absl::Seconds(30)))
      << postgres_from();

  absl::Status refused = client()
                             .Patch(kPostgresClusters, ns(), "np", kube::PatchType::kMerge,
                                    {{"spec",
                                      {{"networkPolicy",
                                        {{"postgresFrom",
                                          {{{"podSelector", Json::object()},
                                            {"ipBlock", {{"cidr", "10.0.0.0/8"}}}}}}}}}}})
                             .status();
  EXPECT_TRUE(absl::IsInvalidArgument(refused)) << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "ipBlock cannot be combined")) << refused;
}

TEST_F(PostgresClusterControllerTest, ReconcilingAnUnchangedClusterWritesNothing) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("quiet", Json::object())).ok());
  ASSERT_TRUE(
      Eventually([&] { return Condition("quiet", "Ready").is_object(); }, absl::Seconds(30)));
  ExpectANoOpReconcileWritesNothing("quiet");
}

TEST_F(PostgresClusterControllerTest, GrowingStorageExpandsTheVolumesAndDoesNotWedge) {
  const kube::GroupVersionResource storage_classes{"storage.k8s.io", "v1", "storageclasses"};
  const std::string sc = "sc-" + ns();
  ASSERT_TRUE(client()
                  .Create(storage_classes, "",
                          {{"apiVersion", "storage.k8s.io/v1"},
                           {"kind", "StorageClass"},
                           {"metadata", {{"name", sc}}},
                           {"provisioner", "example.com/none"},
                           {"allowVolumeExpansion", true}})
                  .ok());
  const kube::GroupVersionResource volumes{"", "v1", "persistentvolumes"};
  std::vector<std::string> pvs;
  for (int k = 0; k < 2; ++k) {
    const std::string claim = "pgdata-grow-main-" + std::to_string(k);
    pvs.push_back("pv-" + std::to_string(k) + "-" + ns());
    ASSERT_TRUE(client()
                    .Create(volumes, "",
                            {{"apiVersion", "v1"},
                             {"kind", "PersistentVolume"},
                             {"metadata", {{"name", pvs.back()}}},
                             {"spec",
                              {{"capacity", {{"storage", "1Gi"}}},
                               {"accessModes", {"ReadWriteOnce"}},
                               {"storageClassName", sc},
                               {"persistentVolumeReclaimPolicy", "Retain"},
                               {"hostPath", {{"path", "/tmp/" + pvs.back()}}},
                               {"claimRef", {{"namespace", ns()}, {"name", claim}}}}}})
                    .ok());
  }
  absl::Cleanup remove_volumes = [&] {
    for (const std::string& pv : pvs) (void)client().Delete(volumes, "", pv);
  };
  Json obj = Cluster("grow", Json::object());
  obj["spec"]["instances"][0]["dataVolumeClaimSpec"]["storageClassName"] = sc;
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), obj).ok());
  for (int k = 0; k < 2; ++k) {
    const std::string claim = "pgdata-grow-main-" + std::to_string(k);
    ASSERT_TRUE(Eventually(
        [&] {
          auto pvc = client().Get(kube::kPvcs, ns(), claim);
          return pvc.ok() && (*pvc).value("status", Json::object()).value("phase", "") == "Bound";
        },
        absl::Seconds(90)))
        << "the PV binder did not bind " << claim;
  }
  ASSERT_TRUE(
      Eventually([&] { return client().Get(kPods, ns(), "grow-main-1").ok(); }, absl::Seconds(30)));
  const std::string sts_uid = (*client().Get(kStatefulSets, ns(), "grow-main"))["metadata"]["uid"];
  const std::string pod_uid = (*client().Get(kPods, ns(), "grow-main-1"))["metadata"]["uid"];
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "grow", kube::PatchType::kJson,
                         Json::array({{{"op", "replace"},
                                       {"path",
                                        "/spec/instances/0/dataVolumeClaimSpec/resources/"
                                        "requests/storage"},
                                       {"value", "2Gi"}}}))
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        for (int k = 0; k < 2; ++k) {
          auto pvc = client().Get(kube::kPvcs, ns(), "pgdata-grow-main-" + std::to_string(k));
          if (!pvc.ok() || (*pvc)["spec"]["resources"]["requests"]["storage"] != "2Gi")
            return false;
        }
        return true;
      },
      absl::Seconds(60)))
      << "both claims were asked to grow";
  EXPECT_TRUE(Eventually(
      [&] {
        auto sts = client().Get(kStatefulSets, ns(), "grow-main");
        return sts.ok() && (*sts)["metadata"]["uid"] != sts_uid &&
               (*sts)["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]
                     ["storage"] == "2Gi";
      },
      absl::Seconds(60)))
      << "the StatefulSet was re-created with the new claim template";
  EXPECT_EQ((*client().Get(kPods, ns(), "grow-main-1"))["metadata"]["uid"], pod_uid)
      << "the pod was not restarted";
  EXPECT_TRUE(Eventually(
      [&] {
        const Json c = Condition("grow", "Storage");
        return c.is_object() && c.value("reason", "") == "Resizing";
      },
      absl::Seconds(60)))
      << Condition("grow", "Storage").dump();
  absl::StatusOr<runtime::Result> r = reconciler_->Reconcile({ns(), "grow"});
  EXPECT_TRUE(r.ok()) << r.status();
  (void)client().Delete(storage_classes, "", sc);
}

}  // namespace
}  // namespace quorum::postgrescluster
