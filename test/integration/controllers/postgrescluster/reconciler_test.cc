// The PostgresCluster controller against the real control plane (no
// kubelet: pods stay Pending and no Patroni answers). Checked here: the exact
// set of objects for each DCS (no leader-lease/config Services and no
// Endpoints rights with etcd), Secret problems as Warning events and a false
// DCSReady condition that clear when the Secret is fixed — without touching
// the PostgresCluster —, clusterRef waiting for its EtcdCluster, the pods'
// API rights (none by default with etcd) switched on and off by spec, and
// zero writes on a no-op reconcile.
// Patroni and PostgreSQL themselves are tested in test/integration/patroni.
#include "src/controllers/postgrescluster/reconciler.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/claim_templates.h"
#include "src/controllers/postgrescluster/finalizer.h"
#include "src/etcd/client.h"
#include "src/kube/errors.h"
#include "src/runtime/certs.h"
#include "test/integration/controllers/api_writes.h"
#include "test/integration/controllers/controller_fixture.h"
#include "test/integration/controllers/refuse_budgets.h"
#include "test/integration/etcd/etcd_harness.h"
#include "test/integration/testenv.h"

namespace quorum::postgrescluster {
namespace {

using kube::Json;
using testenv::Eventually;

Json Cluster(const std::string& name, Json patroni) {
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

Json Secret(const std::string& name, std::map<std::string, std::string> data) {
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
    ASSERT_TRUE(Eventually(
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

// Issue 36.5: Patroni makes its ConfigMaps without an owner; the cluster
// becomes one (not their controller), so they go when the cluster does and a
// cluster made again under the same name does not find the old one's state.
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

// Issue 36.5 and the operator upgrade: a cluster an older operator made (its
// Patroni ConfigMap says use_endpoints: true) stays on Endpoints, so nothing
// its members run changes and none restarts.
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

// Issue 36.5: the move of docs/operations.md. ConfigMaps recorded while
// members run is put back (members on two kinds would see two leader locks);
// with every member stopped it holds, and the next start is on ConfigMaps.
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

// A switchover to a pod the spec does not ask for (a typo) is answered Failed
// at once, naming the field and the members, instead of waiting forever for a
// pod that will never run (issue 33); nothing else waits behind it.
TEST_F(PostgresClusterControllerTest, ASwitchoverToANonMemberFailsAtOnceNamingTheMembers) {
  ASSERT_TRUE(client()
                  .Create(kPostgresClusters, ns(),
                          Cluster("typo", {{"switchover",
                                            {{"enabled", true}, {"targetInstance", "nobody-0"}}}}))
                  .ok());
  ASSERT_TRUE(
      client()
          .Patch(kPostgresClusters, ns(), "typo", kube::PatchType::kMerge,
                 {{"metadata",
                   {{"annotations", {{std::string(api::kSwitchoverTriggerAnnotation), "t1"}}}}}})
          .ok());
  Json record;
  ASSERT_TRUE(Eventually(
      [&] {
        auto got = client().Get(kPostgresClusters, ns(), "typo");
        if (!got.ok()) return false;
        record = got->value("status", Json::object())
                     .value("patroni", Json::object())
                     .value("switchover", Json::object());
        return record.value("trigger", "") == "t1";
      },
      absl::Seconds(30)))
      << record.dump();
  EXPECT_EQ(record.value("result", ""), "Failed") << record.dump();
  EXPECT_TRUE(absl::StrContains(record.value("message", ""),
                                "spec.patroni.switchover.targetInstance: nobody-0 is not a member "
                                "of this cluster (its members: typo-main-0, typo-main-1)"))
      << record.dump();
}

// Removing an instance set deletes its StatefulSet (issue 33: it used to keep
// running, its members still in the Patroni cluster), and a scale-down goes
// through. Without a kubelet the pods stay Pending — they never ran, so none
// can be the primary and nothing waits for one (membership.h); the claims
// stay. The e2e test covers members that run.
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

// Issue 33: when the API server refuses an owned object (a policy, a quota),
// the status says so — Ready=False naming the object and the server's
// message — and an ApplyRefused event too; it used to keep Ready as it was.
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

TEST_F(PostgresClusterControllerTest, EtcdDcsSecretProblemsAreReportedAndClearWhenFixed) {
  Json patroni = {{"dcs",
                   {{"type", "etcd"},
                    {"etcd",
                     {{"endpoints", {"https://etcd.example:2379"}},
                      {"tlsSecret", "etcd-tls"},
                      {"authSecret", "etcd-auth"}}}}}};
  ASSERT_TRUE(
      client()
          .Create(kSecrets, ns(), Secret("etcd-auth", {{"username", "u"}, {"password", "p"}}))
          .ok());
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("pg", patroni)).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("pg", "DCSReady");
        return c.is_object() && c["reason"] == "SecretNotFound";
      },
      absl::Seconds(30)));
  EXPECT_EQ(Condition("pg", "DCSReady")["status"], "False");
  EXPECT_TRUE(absl::StrContains(Condition("pg", "DCSReady")["message"].get<std::string>(),
                                "spec.patroni.dcs.etcd.tlsSecret"));
  // https:// with credentials the user manages (issue 34).
  EXPECT_EQ(Condition("pg", "DCSSecure")["status"], "True");
  EXPECT_EQ(Condition("pg", "DCSSecure")["reason"], "UserManagedEtcd");
  ASSERT_TRUE(
      Eventually([&] { return HasWarning("SecretNotFound", "etcd-tls"); }, absl::Seconds(30)));
  EXPECT_TRUE(absl::IsNotFound(client().Get(kStatefulSets, ns(), "pg-main").status()))
      << "no members without a usable DCS";
  auto before = client().Get(kPostgresClusters, ns(), "pg");
  const int64_t generation = (*before)["metadata"].value("generation", 0);

  // Incomplete, then complete: each change of the Secret alone moves the cluster on.
  ASSERT_TRUE(client()
                  .Create(kSecrets, ns(), Secret("etcd-tls", {{"ca.crt", "CA"}, {"tls.crt", "C"}}))
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("pg", "DCSReady");
        return c.is_object() && c["reason"] == "SecretIncomplete";
      },
      absl::Seconds(30)));
  EXPECT_TRUE(
      absl::StrContains(Condition("pg", "DCSReady")["message"].get<std::string>(), "tls.key"));
  ASSERT_TRUE(
      Eventually([&] { return HasWarning("SecretIncomplete", "tls.key"); }, absl::Seconds(30)));
  ASSERT_TRUE(client()
                  .Patch(kSecrets, ns(), "etcd-tls", kube::PatchType::kMerge,
                         {{"data", {{"tls.key", absl::Base64Escape("K")}}}})
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Condition("pg", "DCSReady")["status"] == "True"; },
                         absl::Seconds(30)));
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "pg-main").ok(); },
                         absl::Seconds(30)));
  EXPECT_EQ((*client().Get(kPostgresClusters, ns(), "pg"))["metadata"]["generation"], generation)
      << "the PostgresCluster was not touched";

  // Issue 15.4: with etcd the pods get no API rights unless the spec asks.
  const std::set<std::string> want = {
      "StatefulSet/pg-main",   "Service/pg",           "Service/pg-replicas",
      "Service/pg-pods",       "ConfigMap/pg-patroni", "Secret/pg-superuser",
      "Secret/pg-replication", "Secret/pg-user-app",   "PodDisruptionBudget/pg",
      "Secret/pg-ca",          "Secret/pg-tls",        "Secret/pg-patroni-api",
      "NetworkPolicy/pg"};
  EXPECT_EQ(Owned(Uid("pg")), want) << "no leader-lease or config Service with etcd, no RBAC";
  auto primary = client().Get(kServices, ns(), "pg");
  EXPECT_EQ((*primary)["spec"]["selector"]["role"], "primary");
  auto sts = client().Get(kStatefulSets, ns(), "pg-main");
  EXPECT_TRUE(absl::StrContains(sts->dump(), "\"secretName\":\"etcd-tls\""));
  EXPECT_EQ((*sts)["spec"]["template"]["spec"]["automountServiceAccountToken"], false);
  EXPECT_EQ((*sts)["spec"]["template"]["spec"]["serviceAccountName"], "default");
  auto config = client().Get(kConfigMaps, ns(), "pg-patroni");
  EXPECT_FALSE(
      absl::StrContains((*config)["data"]["patroni.yaml"].get<std::string>(), "on_role_change"))
      << "no role callback: it could not label the pod";

  // Asked for, the pods get a Role for the callback (never endpoints).
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "pg", kube::PatchType::kMerge,
                         {{"spec", {{"patroni", {{"podAPIAccess", true}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] {
        auto sts = client().Get(kStatefulSets, ns(), "pg-main");
        return client().Get(kRoles, ns(), "pg-instance").ok() && sts.ok() &&
               (*sts)["spec"]["template"]["spec"].value("serviceAccountName", "") == "pg-instance";
      },
      absl::Seconds(30)));
  auto role = client().Get(kRoles, ns(), "pg-instance");
  EXPECT_FALSE(absl::StrContains(role->dump(), "endpoints")) << role->dump();

  // Turning the pods' API access off removes their rights entirely.
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "pg", kube::PatchType::kMerge,
                         {{"spec", {{"patroni", {{"podAPIAccess", false}}}}}})
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] {
        return absl::IsNotFound(client().Get(kRoles, ns(), "pg-instance").status()) &&
               absl::IsNotFound(client().Get(kRoleBindings, ns(), "pg-instance").status()) &&
               absl::IsNotFound(client().Get(kServiceAccounts, ns(), "pg-instance").status());
      },
      absl::Seconds(30)));
  // The pods no longer name the account that is gone: the API server keeps
  // the deprecated serviceAccount field in step and would copy a dropped
  // name back, and the StatefulSet could not create pods (seen on a real
  // node: a rolling update wedged).
  ASSERT_TRUE(Eventually(
      [&] {
        auto sts = client().Get(kStatefulSets, ns(), "pg-main");
        if (!sts.ok()) return false;
        const Json& spec = (*sts)["spec"]["template"]["spec"];
        return spec.value("serviceAccountName", "") == "default" &&
               spec.value("serviceAccount", "default") == "default" &&
               spec.value("automountServiceAccountToken", true) == false;
      },
      absl::Seconds(30)))
      << client().Get(kStatefulSets, ns(), "pg-main")->dump();
}

TEST_F(PostgresClusterControllerTest, ClusterRefWaitsForTheEtcdCluster) {
  Json patroni = {{"dcs", {{"type", "etcd"}, {"etcd", {{"clusterRef", {{"name", "dcs"}}}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("ref", patroni)).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("ref", "DCSReady");
        return c.is_object() && c["reason"] == "EtcdClusterNotFound";
      },
      absl::Seconds(30)));
  // An EtcdCluster that says it is Ready (no etcd controller runs here).
  ASSERT_TRUE(
      client()
          .Create(kSecrets, ns(),
                  Secret("dcs-client", {{"ca.crt", "A"}, {"tls.crt", "B"}, {"tls.key", "C"}}))
          .ok());
  // Without etcd auth (with it, the pods get their own etcd user:
  // etcd_user_test.cc).
  Json etcd = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
               {"kind", "EtcdCluster"},
               {"metadata", {{"name", "dcs"}}},
               {"spec", {{"replicas", 3}}}};
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), etcd).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("ref", "DCSReady");
        return c.is_object() && c["reason"] == "EtcdClusterNotReady";
      },
      absl::Seconds(30)));
  Json status = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                 {"kind", "EtcdCluster"},
                 {"metadata", {{"name", "dcs"}, {"namespace", ns()}}},
                 {"status",
                  {{"conditions",
                    {{{"type", "Ready"},
                      {"status", "True"},
                      {"reason", "StatefulSetReady"},
                      {"message", "test"},
                      {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}},
                   {"clientEndpoint", "https://dcs." + ns() + ".svc:2379"},
                   {"clientSecretName", "dcs-client"}}}};
  ASSERT_TRUE(
      client()
          .ApplyStatus(kEtcdClusters, ns(), status, {.field_manager = "test", .force = true})
          .ok());
  ASSERT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "ref-main").ok(); },
                         absl::Seconds(30)));
  auto sts = client().Get(kStatefulSets, ns(), "ref-main");
  const std::string dump = sts->dump();
  EXPECT_TRUE(absl::StrContains(dump, "\"secretName\":\"dcs-client\"")) << dump;
  auto cm = client().Get(kConfigMaps, ns(), "ref-patroni");
  EXPECT_TRUE(absl::StrContains((*cm)["data"]["patroni.yaml"].get<std::string>(),
                                "dcs." + ns() + ".svc:2379"));
  // Neither client TLS nor auth on that EtcdCluster: DCSSecure says so,
  // naming the field (issue 34).
  const Json secure = Condition("ref", "DCSSecure");
  EXPECT_EQ(secure["status"], "False") << secure.dump();
  EXPECT_EQ(secure["reason"], "EtcdWithoutTlsAndAuth") << secure.dump();
  EXPECT_TRUE(absl::StartsWith(secure.value("message", ""), "spec.patroni.dcs.etcd.clusterRef"))
      << secure.dump();
}

std::string Decoded(const Json& secret, const char* key) {
  std::string out;
  const Json& v = secret["data"].value(key, Json());
  if (v.is_string()) absl::Base64Unescape(v.get<std::string>(), &out);
  return out;
}

// Issue 15.2: spec.networkPolicy.postgresFrom is copied into the policy the
// real API server accepts, follows edits ([]: members and operator only),
// and the CRD's rules refuse an ipBlock beside a selector.
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

// Issue 15.1: the cluster's CA and the members' certificate, the connection
// Secrets' CA and sslmode, the mounted certificate, the NetworkPolicy; a
// certificate near its expiry is renewed in place (the same Secret).
TEST_F(PostgresClusterControllerTest, IssuesTheServerCertificateAndRenewsItBeforeExpiry) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("sec", Json::object())).ok());
  // The reconcile writes these one after another: wait for all of them.
  absl::StatusOr<Json> tls, ca, superuser, api;
  ASSERT_TRUE(Eventually(
      [&] {
        tls = client().Get(kSecrets, ns(), "sec-tls");
        ca = client().Get(kSecrets, ns(), "sec-ca");
        superuser = client().Get(kSecrets, ns(), "sec-superuser");
        api = client().Get(kSecrets, ns(), "sec-patroni-api");
        return tls.ok() && ca.ok() && superuser.ok() && api.ok() &&
               !Decoded(*superuser, "ca.crt").empty();
      },
      absl::Seconds(30)));
  const std::string ca_pem = Decoded(*ca, "ca.crt");
  EXPECT_EQ(Decoded(*tls, "ca.crt"), ca_pem);
  EXPECT_TRUE(runtime::VerifyCertificate(Decoded(*tls, "tls.crt"), ca_pem, absl::Now()).ok());
  absl::StatusOr<runtime::CertificateInfo> info =
      runtime::InspectCertificate(Decoded(*tls, "tls.crt"));
  ASSERT_TRUE(info.ok());
  for (const std::string& name : {"sec." + ns() + ".svc", "*.sec-pods." + ns() + ".svc",
                                  "sec-replicas." + ns() + ".svc.cluster.local"}) {
    EXPECT_NE(std::find(info->dns_names.begin(), info->dns_names.end(), name),
              info->dns_names.end())
        << name;
  }
  EXPECT_EQ(Decoded(*superuser, "ca.crt"), ca_pem);
  EXPECT_EQ(Decoded(*superuser, "sslmode"), "verify-full");
  EXPECT_EQ((*api)["type"], "kubernetes.io/basic-auth");
  absl::StatusOr<Json> sts;
  ASSERT_TRUE(Eventually([&] { return (sts = client().Get(kStatefulSets, ns(), "sec-main")).ok(); },
                         absl::Seconds(30)));
  const std::string pod = (*sts)["spec"]["template"]["spec"].dump();
  EXPECT_TRUE(absl::StrContains(
      pod, R"({"name":"tls","secret":{"defaultMode":288,"secretName":"sec-tls"}})"))
      << pod;
  EXPECT_TRUE(absl::StrContains(pod, "PATRONI_RESTAPI_PASSWORD"));
  EXPECT_FALSE(absl::StrContains(pod, Decoded(*api, "password")));
  absl::StatusOr<Json> cm = client().Get(kConfigMaps, ns(), "sec-patroni");
  ASSERT_TRUE(cm.ok());
  const std::string yaml = (*cm)["data"]["patroni.yaml"].get<std::string>();
  EXPECT_TRUE(absl::StrContains(yaml, "ssl_cert_file: /etc/patroni/tls/tls.crt")) << yaml;
  EXPECT_TRUE(absl::StrContains(yaml, "hostssl all all all scram-sha-256")) << yaml;
  // The REST API on HTTPS with the same certificate; the members and
  // patronictl trust the CA and call each other by pod DNS name; the kubelet
  // probes over HTTPS.
  EXPECT_TRUE(absl::StrContains(yaml, "certfile: /etc/patroni/tls/tls.crt")) << yaml;
  EXPECT_TRUE(absl::StrContains(yaml, "cacert: /etc/patroni/tls/ca.crt")) << yaml;
  EXPECT_TRUE(absl::StrContains(pod, R"("scheme":"HTTPS")")) << pod;
  EXPECT_TRUE(absl::StrContains(
      pod,
      absl::StrCat(R"({"name":"PATRONI_RESTAPI_CONNECT_ADDRESS","value":"$(POD_NAME).sec-pods.)",
                   ns(), R"(.svc:8008"})")))
      << pod;
  EXPECT_FALSE(absl::StrContains(yaml, "- host all")) << yaml;
  EXPECT_FALSE(absl::StrContains(yaml, Decoded(*api, "password")));
  EXPECT_TRUE(client().Get(kNetworkPolicies, ns(), "sec").ok());

  // Near its expiry (a minute left of an hour): the operator renews it in
  // the same Secret, from the same CA.
  runtime::CertKeyPair ca_pair{ca_pem, Decoded(*ca, "ca.key")};
  absl::StatusOr<runtime::CertKeyPair> short_lived = runtime::GenerateServingCert(
      ca_pair, "sec", info->dns_names, {"127.0.0.1"}, absl::Minutes(1), absl::Now());
  ASSERT_TRUE(short_lived.ok());
  Json near = *tls;
  near["data"]["tls.crt"] = absl::Base64Escape(short_lived->cert_pem);
  near["data"]["tls.key"] = absl::Base64Escape(short_lived->key_pem);
  ASSERT_TRUE(client().Update(kSecrets, ns(), near).ok());
  absl::StatusOr<runtime::CertificateInfo> renewed;
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<Json> now = client().Get(kSecrets, ns(), "sec-tls");
        if (!now.ok()) return false;
        renewed = runtime::InspectCertificate(Decoded(*now, "tls.crt"));
        return renewed.ok() && renewed->not_after > absl::Now() + absl::Hours(24 * 80) &&
               runtime::CheckKeyMatchesCertificate(Decoded(*now, "tls.crt"),
                                                   Decoded(*now, "tls.key"))
                   .ok();
      },
      absl::Seconds(30)));
  EXPECT_NE(renewed->serial_hex, info->serial_hex);
  absl::StatusOr<Json> after = client().Get(kSecrets, ns(), "sec-tls");
  EXPECT_TRUE(runtime::VerifyCertificate(Decoded(*after, "tls.crt"), ca_pem, absl::Now()).ok());
  EXPECT_EQ((*after)["metadata"]["uid"], (*tls)["metadata"]["uid"]) << "renewed in place";
}

// Connection Secrets made before PostgreSQL TLS have no ca.crt and no
// sslmode: the operator adds them, keeps the passwords, and once done a
// no-op reconcile writes nothing again.
TEST_F(PostgresClusterControllerTest, ConnectionSecretsFromBeforeTlsGetTheCaKeepingPasswords) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("old", Json::object())).ok());
  absl::StatusOr<Json> ca;
  ASSERT_TRUE(Eventually(
      [&] {
        ca = client().Get(kSecrets, ns(), "old-ca");
        return ca.ok() && client().Get(kSecrets, ns(), "old-user-app").ok() &&
               Condition("old", "Ready").is_object();
      },
      absl::Seconds(30)));
  const std::string ca_pem = Decoded(*ca, "ca.crt");
  // As the operator wrote them before TLS: no ca.crt, no sslmode, a uri
  // without one.
  std::map<std::string, std::string> passwords;
  for (const char* name : {"old-superuser", "old-user-app", "old-replication"}) {
    absl::StatusOr<Json> s = client().Get(kSecrets, ns(), name);
    ASSERT_TRUE(s.ok()) << name;
    passwords[name] = Decoded(*s, "password");
    Json& data = (*s)["data"];
    data.erase("ca.crt");
    data.erase("sslmode");
    if (data.contains("uri")) {
      std::string uri = Decoded(*s, "uri");
      uri = uri.substr(0, uri.find('?'));
      data["uri"] = absl::Base64Escape(uri);
    }
    ASSERT_TRUE(client().Update(kSecrets, ns(), *s).ok()) << name;
  }
  for (const char* name : {"old-superuser", "old-user-app", "old-replication"}) {
    absl::StatusOr<Json> s;
    ASSERT_TRUE(Eventually(
        [&] {
          s = client().Get(kSecrets, ns(), name);
          return s.ok() && (*s)["data"].contains("ca.crt");
        },
        absl::Seconds(30)))
        << name;
    EXPECT_EQ(Decoded(*s, "ca.crt"), ca_pem) << name;
    EXPECT_EQ(Decoded(*s, "password"), passwords[name]) << name;
    if (std::string(name) == "old-replication") continue;
    EXPECT_EQ(Decoded(*s, "sslmode"), "verify-full") << name;
    EXPECT_TRUE(absl::EndsWith(Decoded(*s, "uri"), "?sslmode=verify-full")) << Decoded(*s, "uri");
    EXPECT_TRUE(absl::StrContains(Decoded(*s, "uri"), ":" + passwords[name] + "@")) << name;
  }
  // Done: an unchanged cluster's reconcile writes nothing.
  ExpectANoOpReconcileWritesNothing("old");
}

TEST_F(PostgresClusterControllerTest, ReconcilingAnUnchangedClusterWritesNothing) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("quiet", Json::object())).ok());
  ASSERT_TRUE(
      Eventually([&] { return Condition("quiet", "Ready").is_object(); }, absl::Seconds(30)));
  ExpectANoOpReconcileWritesNothing("quiet");
}

// Growing an instance set's storage on an expandable StorageClass (issue
// 14.2): the StatefulSet's claim template is immutable, so the reconcile used
// to fail there, before role labels, users and status. Now each Bound PVC is
// asked to grow and the StatefulSet is re-created (orphan delete) with its
// pods untouched; no resizer runs here, so the Storage condition says
// Resizing. The control plane's PV binder binds the PVCs to volumes the test
// makes for them (pre-bound by claimRef, no provisioner).
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

// The DCS-cleanup finalizer (issue 14.5) against real etcd: deleting the
// cluster removes Patroni's keys under its scope (and only those), so a new
// cluster of the same name would bootstrap; an unreachable etcd keeps the
// object with a Warning that says how to force the delete.
TEST_F(PostgresClusterControllerTest, DeletingRemovesThePatroniKeysFromEtcd) {
  etcd::testing::EtcdHarness harness({.max_members = 1, .name_prefix = "dcs"});
  ASSERT_TRUE(harness.Init().ok());
  absl::StatusOr<std::unique_ptr<etcd::Client>> etcd = etcd::Client::Create(harness.Config());
  ASSERT_TRUE(etcd.ok());
  ASSERT_TRUE(harness.StartNewCluster(**etcd, 1).ok()) << harness.LogTail(0);
  Json patroni = {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {harness.ClientUrl(0)}}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("fin", patroni)).ok());
  auto finalizers = [&](const std::string& name) {
    auto got = client().Get(kPostgresClusters, ns(), name);
    return got.ok() ? (*got)["metadata"].value("finalizers", Json::array()) : Json::array();
  };
  ASSERT_TRUE(Eventually([&] { return finalizers("fin") == Json::array({kDcsFinalizer}); },
                         absl::Seconds(30)))
      << finalizers("fin").dump();
  const std::string prefix = "/quorum/" + ns() + "/";
  for (const char* k : {"fin/initialize", "fin/config", "fin/leader", "fin/members/fin-main-0",
                        "fin2/initialize"}) {
    ASSERT_TRUE((*etcd)->Put(prefix + k, "x").ok()) << k;
  }
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "fin").ok());
  EXPECT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kPostgresClusters, ns(), "fin").status()); },
      absl::Seconds(30)));
  for (const char* k : {"fin/initialize", "fin/config", "fin/leader", "fin/members/fin-main-0"}) {
    absl::StatusOr<etcd::GetResponse> got = (*etcd)->Get(prefix + k);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->value, std::nullopt) << k << " is left: a new \"fin\" would not bootstrap";
  }
  absl::StatusOr<etcd::GetResponse> other = (*etcd)->Get(prefix + "fin2/initialize");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->value, "x") << "another cluster's keys stay";

  // etcd unreachable: the delete waits, and says why and how to force it.
  Json lost = {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {"http://127.0.0.1:1"}}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("lost", lost)).ok());
  ASSERT_TRUE(Eventually([&] { return finalizers("lost").size() == 1; }, absl::Seconds(30)));
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "lost").ok());
  EXPECT_TRUE(Eventually([&] { return HasWarning("DCSCleanupFailed", "kubectl patch"); },
                         absl::Seconds(30)));
  EXPECT_TRUE(client().Get(kPostgresClusters, ns(), "lost").ok()) << "kept while it retries";
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "lost", kube::PatchType::kJson,
                         Json::array({{{"op", "remove"}, {"path", "/metadata/finalizers"}}}))
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kPostgresClusters, ns(), "lost").status()); },
      absl::Seconds(30)));
}

// The cleanup's deadline runs on the reconciler's clock: moved past it, the
// next reconcile gives up on an unreachable etcd, says which keys are left,
// and lets the object go, with no ten-minute wait.
TEST_F(PostgresClusterControllerTest, AnUnreachableDcsIsGivenUpAtTheDeadlineOnTheClock) {
  Json lost = {{"dcs", {{"type", "etcd"}, {"etcd", {{"endpoints", {"http://127.0.0.1:1"}}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("gone", lost)).ok());
  auto finalizers = [&] {
    auto got = client().Get(kPostgresClusters, ns(), "gone");
    return got.ok() ? (*got)["metadata"].value("finalizers", Json::array()) : Json::array();
  };
  ASSERT_TRUE(Eventually([&] { return finalizers().size() == 1; }, absl::Seconds(30)));
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "gone").ok());
  ASSERT_TRUE(
      Eventually([&] { return HasWarning("DCSCleanupFailed", "gone"); }, absl::Seconds(30)));
  EXPECT_TRUE(client().Get(kPostgresClusters, ns(), "gone").ok()) << "kept while it retries";
  EXPECT_FALSE(HasWarning("DCSCleanupAbandoned", "gone"));

  // To the deadline, counted from the API server's deletionTimestamp.
  absl::StatusOr<Json> deleting = client().Get(kPostgresClusters, ns(), "gone");
  ASSERT_TRUE(deleting.ok());
  absl::Time deleted;
  std::string err;
  ASSERT_TRUE(absl::ParseTime(
      absl::RFC3339_full, (*deleting)["metadata"].value("deletionTimestamp", ""), &deleted, &err))
      << err;
  clock_.Advance(deleted + kDcsCleanupDeadline - clock_.Now());
  // Woken at once rather than at the end of the retry's backoff.
  ASSERT_TRUE(client()
                  .Patch(kPostgresClusters, ns(), "gone", kube::PatchType::kMerge,
                         {{"metadata", {{"annotations", {{"example.com/touched", "deadline"}}}}}})
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] { return absl::IsNotFound(client().Get(kPostgresClusters, ns(), "gone").status()); },
      absl::Seconds(30)));
  EXPECT_TRUE(HasWarning("DCSCleanupAbandoned", "etcdctl del --prefix"));
}

// Renewal follows the reconciler's clock: a day before the renewal time a
// touch writes nothing; an hour before the expiry the members' certificate
// is rewritten in place from the same CA, with no wait for the time to come.
TEST_F(PostgresClusterControllerTest, TheServerCertificateComingDueOnTheClockIsRenewedInPlace) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("due", Json::object())).ok());
  ASSERT_TRUE(
      Eventually([&] { return client().Get(kSecrets, ns(), "due-tls").ok(); }, absl::Seconds(30)));
  ExpectANoOpReconcileWritesNothing("due");
  absl::StatusOr<Json> tls = client().Get(kSecrets, ns(), "due-tls");
  ASSERT_TRUE(tls.ok());
  absl::StatusOr<runtime::CertificateInfo> first =
      runtime::InspectCertificate(Decoded(*tls, "tls.crt"));
  ASSERT_TRUE(first.ok());
  const absl::Time renewal = first->not_after - (first->not_after - first->not_before) / 3;
  clock_.Advance(renewal - absl::Hours(24) - clock_.Now());
  EXPECT_EQ(
      testenv::WritesOfATouch(client(), manager(), controller(), kPostgresClusters, ns(), "due"),
      0.0);

  clock_.Advance(first->not_after - absl::Hours(1) - clock_.Now());
  ASSERT_TRUE(
      testenv::WritesOfATouch(client(), manager(), controller(), kPostgresClusters, ns(), "due"));
  absl::StatusOr<Json> after;
  absl::StatusOr<runtime::CertificateInfo> renewed;
  ASSERT_TRUE(Eventually(
      [&] {
        after = client().Get(kSecrets, ns(), "due-tls");
        if (!after.ok()) return false;
        renewed = runtime::InspectCertificate(Decoded(*after, "tls.crt"));
        return renewed.ok() && renewed->serial_hex != first->serial_hex;
      },
      absl::Seconds(30)))
      << "the certificate due on the clock was not renewed";
  EXPECT_GT(renewed->not_after, first->not_after);
  EXPECT_EQ((*after)["metadata"]["uid"], (*tls)["metadata"]["uid"]) << "renewed in place";
  EXPECT_TRUE(
      runtime::VerifyCertificate(Decoded(*after, "tls.crt"), Decoded(*tls, "ca.crt"), clock_.Now())
          .ok());
  EXPECT_TRUE(
      runtime::CheckKeyMatchesCertificate(Decoded(*after, "tls.crt"), Decoded(*after, "tls.key"))
          .ok());
}

// Deleted and created again before the garbage collector removed the earlier
// cluster's Secrets (held here by a finalizer on the superuser Secret): the
// new cluster neither adopts nor uses the old password, which the collector
// is about to delete; it makes its own once the old Secret is gone.
TEST_F(PostgresClusterControllerTest, ACreatedAgainClusterWaitsForItsPredecessorsSecrets) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("again", Json::object())).ok());
  const std::string old_uid = Uid("again");
  ASSERT_TRUE(Eventually([&] { return client().Get(kSecrets, ns(), "again-superuser").ok(); },
                         absl::Seconds(30)));
  const std::string old_password =
      (*client().Get(kSecrets, ns(), "again-superuser"))["data"].value("password", "");
  ASSERT_TRUE(client()
                  .Patch(kSecrets, ns(), "again-superuser", kube::PatchType::kMerge,
                         {{"metadata", {{"finalizers", Json::array({"quorum.dev/test-hold"})}}}})
                  .ok());
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "again").ok());
  ASSERT_TRUE(Eventually([&] { return Uid("again").empty(); }, absl::Seconds(60)));

  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("again", Json::object())).ok());
  const std::string new_uid = Uid("again");
  auto waiting = [&] {
    auto events = client().List({"", "v1", "events"}, ns());
    if (!events.ok()) return false;
    for (const Json& e : (*events)["items"]) {
      if (e.value("reason", "") == "WaitingForEarlierObjects" &&
          e["involvedObject"].value("uid", "") == new_uid) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(Eventually(waiting, absl::Seconds(30)));
  EXPECT_TRUE(Owned(new_uid).empty()) << testing::PrintToString(Owned(new_uid));

  ASSERT_TRUE(client()
                  .Patch(kSecrets, ns(), "again-superuser", kube::PatchType::kMerge,
                         {{"metadata", {{"finalizers", nullptr}}}})
                  .ok());
  std::string password;
  ASSERT_TRUE(Eventually(
      [&] {
        auto secret = client().Get(kSecrets, ns(), "again-superuser");
        if (!secret.ok()) return false;
        const Json& refs = (*secret)["metadata"].value("ownerReferences", Json::array());
        if (refs.empty() || refs[0].value("uid", "") != new_uid) return false;
        password = (*secret)["data"].value("password", "");
        return true;
      },
      absl::Seconds(60)))
      << "no superuser Secret of the new cluster";
  EXPECT_NE(password, old_password);
}

// Issue 33: claims an earlier cluster of this name left (the StatefulSets
// retain them) are not started on: the set's StatefulSet waits, Ready names
// the claims and the command, an event says so; once they are deleted the
// cluster starts fresh. Other objects are applied meanwhile.
TEST_F(PostgresClusterControllerTest, AClusterDoesNotStartOnClaimsAnEarlierOneLeft) {
  const Json pvc = {
      {"apiVersion", "v1"},
      {"kind", "PersistentVolumeClaim"},
      {"metadata",
       {{"name", "pgdata-left-main-1"},
        {"labels",
         {{"postgres.quorum.dev/cluster", "left"}, {"postgres.quorum.dev/instance-set", "main"}}}}},
      {"spec",
       {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  absl::StatusOr<Json> made = client().Create(kube::kPvcs, ns(), pvc);
  ASSERT_TRUE(made.ok()) << made.status();
  // The cluster must be made in a later second than the claim (timestamps
  // have second precision): wait for this machine's clock to pass it.
  const std::string claim_made = (*made)["metadata"].value("creationTimestamp", "");
  ASSERT_TRUE(Eventually(
      [&] {
        return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone()) >
               claim_made;
      },
      absl::Seconds(5)));
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("left", Json::object())).ok());
  Json ready;
  ASSERT_TRUE(Eventually(
      [&] {
        ready = Condition("left", "Ready");
        return !ready.is_null() && ready.value("reason", "") == "LeftoverClaims";
      },
      absl::Seconds(30)))
      << ready.dump();
  EXPECT_EQ(ready.value("status", ""), "False");
  EXPECT_TRUE(
      absl::StrContains(ready.value("message", ""), "kubectl delete pvc pgdata-left-main-1"))
      << ready.dump();
  EXPECT_TRUE(Eventually([&] { return HasWarning("LeftoverClaims", "pgdata-left-main-1"); },
                         absl::Seconds(30)));
  EXPECT_TRUE(absl::IsNotFound(client().Get(kStatefulSets, ns(), "left-main").status()))
      << "a StatefulSet was made on the earlier cluster's claim";
  EXPECT_TRUE(client().Get(kServices, ns(), "left").ok()) << "other objects are applied";

  ASSERT_TRUE(client().Delete(kube::kPvcs, ns(), "pgdata-left-main-1").ok());
  EXPECT_TRUE(Eventually([&] { return client().Get(kStatefulSets, ns(), "left-main").ok(); },
                         absl::Seconds(90)))
      << "the StatefulSet was not made once the claim was deleted";
  EXPECT_TRUE(
      Eventually([&] { return Condition("left", "Ready").value("reason", "") != "LeftoverClaims"; },
                 absl::Seconds(30)));
}

TEST_F(PostgresClusterControllerTest, ForgetsADeletedClusterEntirely) {
  // Waiting for a missing Secret keeps a backoff entry for the cluster.
  Json patroni = {
      {"dcs",
       {{"type", "etcd"},
        {"etcd", {{"endpoints", {"https://etcd.example:2379"}}, {"authSecret", "missing"}}}}}};
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("gone", patroni)).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        Json c = Condition("gone", "DCSReady");
        return c.is_object() && c["reason"] == "SecretNotFound";
      },
      absl::Seconds(30)));
  // The status is written before the reconcile returns its wait.
  EXPECT_TRUE(Eventually([&] { return reconciler_->remembered() > 0; }, absl::Seconds(10)))
      << "waiting for the Secret";
  ASSERT_TRUE(client().Delete(kPostgresClusters, ns(), "gone").ok());
  // Its DCS never resolved, so the DCS-keys finalizer cannot clean up and keeps
  // retrying; a user forces the delete as the DCSCleanupFailed event says.
  ASSERT_TRUE(Eventually(
      [&] {
        return client()
            .Patch(kPostgresClusters, ns(), "gone", kube::PatchType::kMerge,
                   {{"metadata", {{"finalizers", nullptr}}}})
            .ok();
      },
      absl::Seconds(30)));
  EXPECT_TRUE(Eventually([&] { return reconciler_->remembered() == 0; }, absl::Seconds(30)))
      << "memory per cluster must not outlive the cluster";
}

}  // namespace
}  // namespace quorum::postgrescluster
