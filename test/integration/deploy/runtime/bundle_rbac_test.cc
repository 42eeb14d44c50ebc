// The install bundle against a real API server, and least privilege proven:
//
//  * `kubectl apply --server-side -f deploy/quorum.yaml` succeeds (twice);
//  * the real quorum-operator binary, run with the bundle Deployment's own
//    arguments and a token of the bundle's ServiceAccount (TokenRequest), so
//    with exactly the bundle's roles, patches the webhook configurations'
//    caBundle, leads, and reconciles an EtcdCluster to its objects and status
//    (no kubelet: pods stay Pending, status says WaitingForFirstQuorum);
//  * with one rule removed the same scenario fails, and the operator reports
//    Forbidden for that very permission;
//  * the audit log shows which permissions the operator used: a permission
//    that nothing used (and that is not listed below with its reason) fails.
//
// Runs on a private control plane with the audit log on (see
// private_control_plane.h): the webhook configurations must not reach the
// shared one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cmd/crdgen/yaml_to_json.h"
#include "src/kube/errors.h"
#include "test/integration/deploy/runtime/operator_process.h"
#include "test/integration/deploy/runtime/private_control_plane.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::deploytest {
namespace {

using kube::Json;
using testenv::Eventually;

auto* const kControlPlane = ::testing::AddGlobalTestEnvironment(
    new PrivateControlPlane("controlplane-deploy-rbac", __FILE__));

constexpr char kSystem[] = "quorum-system";
constexpr char kUser[] = "system:serviceaccount:quorum-system:quorum-operator";
const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kPostgresClusters{"postgres.quorum.dev", "v1alpha1",
                                                   "postgresclusters"};
const kube::GroupVersionResource kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles"};
const kube::GroupVersionResource kValidating{"admissionregistration.k8s.io", "v1",
                                             "validatingwebhookconfigurations"};
const kube::GroupVersionResource kMutating{"admissionregistration.k8s.io", "v1",
                                           "mutatingwebhookconfigurations"};

// Permissions the scenario here cannot exercise, each with the reason; any
// other permission of the bundle that the operator never used is flagged.
const std::map<std::string, std::string> kMayBeUnused = {
    {"secrets update",
     "webhook certificate renewal (30 days before expiry); PostgreSQL server certificate "
     "renewal (60 days after issue)"},
    {"networking.k8s.io/networkpolicies delete", "spec.networkPolicy.enabled turned off"},
    {"batch/jobs delete",
     "a PostgreSQL major upgrade's Job of an earlier attempt (e2e_postgres_upgrade_test)"},
    // EtcdBackup: this test creates none (etcdbackup_reconciler_integration_test and
    // e2e_etcdbackup_test run them; a Job is created only once the cluster is Ready).
    {"batch/jobs create", "an EtcdBackup of a Ready cluster (needs running members)"},
    {"etcd.aenix.io/etcdbackups/status patch", "an EtcdBackup's phase (this test creates none)"},
    {"etcd.aenix.io/etcdbackups/finalizers update",
     "only checked by the OwnerReferencesPermissionEnforcement admission plugin"},
    // PostgresBackup: this test creates none (e2e_pgbackrest_test runs them).
    {"postgres.quorum.dev/postgresbackups create", "a backup schedule's cron time (none here)"},
    {"postgres.quorum.dev/postgresbackups delete", "a backup schedule's history (none here)"},
    {"postgres.quorum.dev/postgresbackups/status patch",
     "a PostgresBackup's phase (this test creates none)"},
    {"postgres.quorum.dev/postgresbackups/finalizers update",
     "only checked by the OwnerReferencesPermissionEnforcement admission plugin"},
    // PostgresRole, PostgresDatabase: this test creates none (postgres_objects_test
    // in e2e runs them; they apply only to a cluster with a running primary).
    {"postgres.quorum.dev/postgresroles patch", "a PostgresRole's drop finalizer (none here)"},
    {"postgres.quorum.dev/postgresdatabases patch",
     "a PostgresDatabase's drop finalizer (none here)"},
    {"postgres.quorum.dev/postgresroles/status patch", "a PostgresRole's status (none here)"},
    {"postgres.quorum.dev/postgresdatabases/status patch",
     "a PostgresDatabase's status (none here)"},
    {"postgres.quorum.dev/postgresroles/finalizers update",
     "only checked by the OwnerReferencesPermissionEnforcement admission plugin"},
    // EtcdBackupSchedule: this test creates none (etcdbackupschedule_reconciler
    // integration test and e2e_etcdbackup_test run them).
    {"etcd.aenix.io/etcdbackups create", "a schedule's cron time (this test creates none)"},
    {"etcd.aenix.io/etcdbackups delete", "a schedule's history limits and retention"},
    {"etcd.aenix.io/etcdbackupschedules/status patch", "a schedule's status (none created)"},
    {"etcd.aenix.io/etcdbackupschedules/finalizers update",
     "only checked by the OwnerReferencesPermissionEnforcement admission plugin"},
    {"secrets get",
     "Secrets a spec names (read through, not cached); enableAuth: the root Secret read back"},
    {"etcd.aenix.io/etcdclusters/finalizers update",
     "only checked by the OwnerReferencesPermissionEnforcement admission plugin"},
    {"postgres.quorum.dev/postgresclusters/finalizers update",
     "only checked by the OwnerReferencesPermissionEnforcement admission plugin"},
    {"pods delete", "member replacement, rolling updates: need running members (a kubelet)"},
    {"persistentvolumeclaims delete", "etcd member replacement: needs running members"},
    {"events patch", "an Event repeated within the aggregation window"},
    {"apps/statefulsets delete",
     "a changed claim template: the StatefulSet re-created with orphan delete"},
    {"persistentvolumeclaims patch", "volume expansion: needs bound claims (a kubelet)"},
    {"storage.k8s.io/storageclasses get", "volume expansion: whether the class allows it"},
    {"postgres.quorum.dev/postgresclusters patch",
     "the DCS-keys finalizer of a cluster with an etcd DCS (this test runs the kubernetes DCS)"},
    {"pods patch", "role labels with the etcd DCS: needs running Patroni members"},
    {"serviceaccounts delete", "members' API access turned off (podAPIAccess: false)"},
    // spec.proxy.pgBouncer: the scenario here asks for no pooler
    // (postgrescluster_reconciler_integration_test and e2e_pgbouncer_test do).
    {"apps/deployments create", "spec.proxy.pgBouncer (no pooler here)"},
    {"apps/deployments patch", "spec.proxy.pgBouncer (no pooler here)"},
    {"apps/deployments delete", "spec.proxy.pgBouncer removed (no pooler here)"},
    {"services delete", "spec.proxy.pgBouncer removed (no pooler here)"},
    {"rbac.authorization.k8s.io/roles delete", "members' API access turned off"},
    {"rbac.authorization.k8s.io/rolebindings delete", "members' API access turned off"},
    // The Patroni members' Role grants these; RBAC lets the operator create
    // that Role only while holding them itself.
    {"pods get", "granted to Patroni members (kubernetes DCS)"},
    {"pods update", "granted to Patroni members (kubernetes DCS)"},
    {"configmaps get", "granted to Patroni members (kubernetes DCS)"},
    {"configmaps update", "granted to Patroni members (kubernetes DCS)"},
    {"configmaps delete", "granted to Patroni members; restore and major upgrade clear the DCS"},
    {"configmaps deletecollection", "granted to Patroni members (kubernetes DCS)"},
    // Endpoints: clusters made before the kubernetes DCS moved to ConfigMaps.
    {"endpoints get", "granted to Patroni members (kubernetes DCS)"},
    {"endpoints list", "granted to Patroni members (kubernetes DCS)"},
    {"endpoints watch", "granted to Patroni members (kubernetes DCS)"},
    {"endpoints create", "granted to Patroni members (kubernetes DCS)"},
    {"endpoints update", "granted to Patroni members (kubernetes DCS)"},
    {"endpoints patch", "granted to Patroni members (kubernetes DCS)"},
    {"endpoints delete", "granted to Patroni members (kubernetes DCS)"},
    {"endpoints deletecollection", "granted to Patroni members (kubernetes DCS)"},
};

std::vector<Json> Bundle() {
  std::vector<Json> out;
  for (const YAML::Node& doc :
       YAML::LoadAllFromFile(std::string(QUORUM_SOURCE_DIR) + "/deploy/quorum.yaml")) {
    Json j = crdgen::YamlNodeToJson(doc);
    if (j.is_object() && !j.empty()) out.push_back(std::move(j));
  }
  return out;
}

Json FindIn(const std::vector<Json>& docs, const std::string& kind, const std::string& name) {
  for (const Json& d : docs) {
    if (d.value("kind", "") == kind && d["metadata"].value("name", "") == name) return d;
  }
  return nullptr;
}

// "group/resource verb" for every permission a rule grants ("" group: core).
std::set<std::string> Permissions(const Json& rule) {
  std::set<std::string> out;
  for (const Json& g : rule["apiGroups"]) {
    for (const Json& r : rule["resources"]) {
      for (const Json& v : rule["verbs"]) {
        const std::string group = g.get<std::string>();
        out.insert(absl::StrCat(group.empty() ? "" : group + "/", r.get<std::string>(), " ",
                                v.get<std::string>()));
      }
    }
  }
  return out;
}

// `rules` without one permission (rules granting more keep the rest).
Json WithoutPermission(const Json& rules, const std::string& group, const std::string& resource,
                       const std::string& verb) {
  Json out = Json::array();
  for (const Json& rule : rules) {
    bool matches = false;
    for (const Json& g : rule["apiGroups"]) matches |= g == group;
    bool has_resource = false;
    for (const Json& r : rule["resources"]) has_resource |= r == resource;
    if (!matches || !has_resource) {
      out.push_back(rule);
      continue;
    }
    Json others = rule, only = rule;
    others["resources"] = Json::array();
    for (const Json& r : rule["resources"]) {
      if (r != resource) others["resources"].push_back(r);
    }
    if (!others["resources"].empty()) out.push_back(others);
    only["resources"] = Json::array({resource});
    only["verbs"] = Json::array();
    for (const Json& v : rule["verbs"]) {
      if (v != verb) only["verbs"].push_back(v);
    }
    if (!only["verbs"].empty()) out.push_back(only);
  }
  return out;
}

class BundleRbacTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(std::filesystem::exists(OperatorBinary()))
        << OperatorBinary() << " is missing: ninja quorum-operator";
    ApplyBundle();
  }
  void TearDown() override {
    if (op_ != nullptr) op_->Stop();
    IntegrationTest::TearDown();
  }

  std::string Kubectl(const std::string& args) {
    return absl::StrCat(control_plane().bin_dir, "/kubectl --kubeconfig ",
                        control_plane().kubeconfig, " ", args);
  }

  void ApplyBundle() {
    const std::string cmd = Kubectl(absl::StrCat("apply --server-side --force-conflicts -f ",
                                                 QUORUM_SOURCE_DIR, "/deploy/quorum.yaml >&2"));
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    KeepWebhooksAwayFromTestNamespaces();
  }

  // Nothing serves the webhook Service here (no kubelet, no kube-proxy), so
  // the API server must never call it: the webhooks skip namespaces labelled
  // quorum.dev/test (every test's namespace). The selector is this client's
  // field, so re-applying the bundle keeps it; the admission path itself is
  // covered by test/integration/webhooks. The operator's caBundle update
  // (what its RBAC must allow) is unaffected.
  void KeepWebhooksAwayFromTestNamespaces() {
    for (const auto* gvr : {&kValidating, &kMutating}) {
      const std::string name = gvr == &kValidating ? "quorum-validating-webhook-configuration"
                                                   : "quorum-mutating-webhook-configuration";
      for (int attempt = 0; attempt < 5; ++attempt) {
        auto got = client().Get(*gvr, "", name);
        ASSERT_TRUE(got.ok()) << got.status();
        for (Json& w : (*got)["webhooks"]) {
          w["namespaceSelector"] = {
              {"matchExpressions",
               Json::array({{{"key", "quorum.dev/test"}, {"operator", "DoesNotExist"}}})}};
        }
        auto updated = client().Update(*gvr, "", *got);
        if (updated.ok()) break;
        ASSERT_TRUE(kube::IsConflict(updated.status())) << updated.status();
      }
    }
  }

  // A kubeconfig whose user is the bundle's ServiceAccount (a bound token).
  std::string ServiceAccountKubeconfig() {
    auto token = client().CreateSubresource({"", "v1", "serviceaccounts"}, kSystem,
                                            "quorum-operator", "token",
                                            {{"apiVersion", "authentication.k8s.io/v1"},
                                             {"kind", "TokenRequest"},
                                             {"spec", {{"expirationSeconds", 3600}}}});
    EXPECT_TRUE(token.ok()) << token.status();
    if (!token.ok()) return "";
    const std::string path = absl::StrCat(control_plane().dir, "/operator-", ns(), ".kubeconfig");
    std::ofstream out(path);
    out << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
        << control_plane().config.server
        << "\n    certificate-authority-data: " << absl::Base64Escape(control_plane().config.ca_pem)
        << "\nusers:\n- name: quorum-operator\n  user:\n    token: "
        << (*token)["status"]["token"].get<std::string>()
        << "\ncontexts:\n- name: c\n  context: {cluster: c, user: quorum-operator, namespace: "
        << kSystem << "}\ncurrent-context: c\n";
    return path;
  }

  // The bundle Deployment's arguments, with local addresses and folders.
  std::vector<std::string> OperatorArgs(const std::string& kubeconfig) {
    const Json dep = FindIn(Bundle(), "Deployment", "quorum-operator");
    std::vector<std::string> args = {"--kubeconfig=" + kubeconfig};
    const std::string certs = absl::StrCat(control_plane().dir, "/webhook-certs-", ns());
    for (const Json& a : dep["spec"]["template"]["spec"]["containers"][0]["args"]) {
      std::string s = a.get<std::string>();
      if (absl::StartsWith(s, "--metrics-bind-address=")) s = "--metrics-bind-address=127.0.0.1:0";
      if (absl::StartsWith(s, "--health-probe-bind-address="))
        s = "--health-probe-bind-address=127.0.0.1:0";
      if (absl::StartsWith(s, "--webhook-port="))
        s = "--webhook-port=" + std::to_string(FreePort());
      if (absl::StartsWith(s, "--webhook-cert-dir=")) s = "--webhook-cert-dir=" + certs;
      if (absl::StartsWith(s, "--log-format=")) s = "--log-format=text";
      args.push_back(s);
    }
    args.push_back("--leader-elect-lease-duration=4s");
    args.push_back("--leader-elect-renew-deadline=3s");
    args.push_back("--leader-elect-retry-period=500ms");
    return args;
  }

  static int FreePort() {
    // A port below Linux's default ephemeral range (32768–60999), picked at
    // random: the webhook server needs a fixed number (0 means off). 20000 +
    // up to 20000 reached into that range, and a client's port took it once.
    static std::mt19937 rng{std::random_device{}()};
    return 20000 + static_cast<int>(rng() % 12000);
  }

  void StartOperator() {
    const std::string kubeconfig = ServiceAccountKubeconfig();
    ASSERT_FALSE(kubeconfig.empty());
    op_ = std::make_unique<OperatorProcess>(
        OperatorArgs(kubeconfig), absl::StrCat(control_plane().dir, "/operator-", ns(), ".log"));
    ASSERT_TRUE(op_->started());
  }

  // The caBundle the operator patched in, once both configurations carry it.
  bool WebhooksPatched() {
    for (const auto* gvr : {&kValidating, &kMutating}) {
      const std::string name = gvr == &kValidating ? "quorum-validating-webhook-configuration"
                                                   : "quorum-mutating-webhook-configuration";
      auto got = client().Get(*gvr, "", name);
      if (!got.ok()) return false;
      for (const Json& w : (*got)["webhooks"]) {
        if (w["clientConfig"].value("caBundle", "").empty()) return false;
      }
    }
    return true;
  }

  void CreateEtcdCluster(const std::string& name) {
    auto created = client().Create(
        kEtcdClusters, ns(),
        {{"apiVersion", "etcd.aenix.io/v1alpha1"},
         {"kind", "EtcdCluster"},
         {"metadata", {{"name", name}, {"namespace", ns()}}},
         {"spec", {{"replicas", 3}, {"podDisruptionBudgetTemplate", {{"spec", Json::object()}}}}}});
    ASSERT_TRUE(created.ok()) << created.status();
  }

  void CreatePostgresCluster(const std::string& name) {
    auto created =
        client().Create(kPostgresClusters, ns(),
                        Json::parse(absl::StrCat(R"({"apiVersion": "postgres.quorum.dev/v1alpha1",
            "kind": "PostgresCluster", "metadata": {"name": ")",
                                                 name, R"(", "namespace": ")", ns(), R"("},
            "spec": {"postgresVersion": 17, "instances": [{"name": "main", "replicas": 2,
              "dataVolumeClaimSpec": {"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}}}}],
              "users": [{"name": "app", "databases": ["app"]}]}})")));
    ASSERT_TRUE(created.ok()) << created.status();
  }

  bool Exists(const kube::GroupVersionResource& gvr, const std::string& name) {
    return client().Get(gvr, ns(), name).ok();
  }

  std::string ReadyReason(const std::string& name) {
    auto got = client().Get(kEtcdClusters, ns(), name);
    if (!got.ok()) return "";
    const Json status = got->value("status", Json::object());
    for (const Json& c : status.value("conditions", Json::array())) {
      if (c.value("type", "") == "Ready") return c.value("reason", "");
    }
    return "";
  }

  bool OperatorSaid(const std::string& text) { return absl::StrContains(op_->Log(), text); }

  std::unique_ptr<OperatorProcess> op_;
};

TEST_F(BundleRbacTest, BundleAppliesServerSideAndAgainWithoutChange) {
  // SetUp applied it once; a second apply must find nothing to fight over.
  ApplyBundle();
  auto dep = client().Get({"apps", "v1", "deployments"}, kSystem, "quorum-operator");
  ASSERT_TRUE(dep.ok()) << dep.status();
  EXPECT_EQ((*dep)["spec"]["replicas"], 2);
  // The Deployment validated and its controller acted on it (pods stay
  // Pending: there is no kubelet).
  EXPECT_TRUE(Eventually(
      [&] {
        auto rs = client().List({"apps", "v1", "replicasets"}, kSystem);
        return rs.ok() && !(*rs)["items"].empty();
      },
      absl::Seconds(30)));
  const std::string dry = Kubectl(absl::StrCat("apply --server-side --dry-run=server -f ",
                                               QUORUM_SOURCE_DIR, "/deploy/quorum.yaml >&2"));
  EXPECT_EQ(std::system(dry.c_str()), 0);
}

TEST_F(BundleRbacTest, OperatorWithTheBundlesRolesReconcilesAnEtcdCluster) {
  ASSERT_NO_FATAL_FAILURE(StartOperator());
  ASSERT_TRUE(Eventually([&] { return WebhooksPatched(); }, absl::Seconds(60))) << op_->Log();
  CreateEtcdCluster("etcd");
  const bool reconciled = Eventually(
      [&] {
        return Exists({"apps", "v1", "statefulsets"}, "etcd") &&
               Exists({"", "v1", "services"}, "etcd") &&
               Exists({"", "v1", "services"}, "etcd-headless") &&
               Exists({"", "v1", "configmaps"}, "etcd-cluster-state") &&
               Exists({"policy", "v1", "poddisruptionbudgets"}, "etcd") &&
               Exists({"networking.k8s.io", "v1", "networkpolicies"}, "etcd") &&
               ReadyReason("etcd") == "WaitingForFirstQuorum";
      },
      absl::Seconds(90));
  EXPECT_TRUE(reconciled) << op_->Log();
  EXPECT_TRUE(Eventually(
      [&] {
        auto events = client().List({"", "v1", "events"}, ns());
        return events.ok() && !(*events)["items"].empty();
      },
      absl::Seconds(30)))
      << "the operator records Events";
  // A PostgresCluster on the kubernetes DCS: its objects include a Role for
  // the Patroni members, which the operator may create only because it holds
  // every permission that Role grants.
  CreatePostgresCluster("pg");
  const bool postgres = Eventually(
      [&] {
        return Exists({"apps", "v1", "statefulsets"}, "pg-main") &&
               Exists({"", "v1", "services"}, "pg") &&
               Exists({"", "v1", "services"}, "pg-replicas") &&
               Exists({"", "v1", "configmaps"}, "pg-patroni") &&
               Exists({"", "v1", "serviceaccounts"}, "pg-instance") &&
               Exists({"rbac.authorization.k8s.io", "v1", "roles"}, "pg-instance") &&
               Exists({"rbac.authorization.k8s.io", "v1", "rolebindings"}, "pg-instance") &&
               Exists({"policy", "v1", "poddisruptionbudgets"}, "pg") &&
               Exists({"", "v1", "secrets"}, "pg-superuser");
      },
      absl::Seconds(90));
  EXPECT_TRUE(postgres) << op_->Log();
  auto lease = client().Get({"coordination.k8s.io", "v1", "leases"}, kSystem, "quorum-operator");
  ASSERT_TRUE(lease.ok()) << lease.status();
  EXPECT_EQ(op_->Stop(SIGTERM), 0) << op_->Log();
  const std::string log = op_->Log();
  EXPECT_FALSE(absl::StrContains(log, "forbidden")) << log;
}

struct RemovedRule {
  std::string group, resource, verb;
  std::string evidence;  // what the operator must report
};

class MissingRuleTest : public BundleRbacTest, public ::testing::WithParamInterface<RemovedRule> {};

TEST_P(MissingRuleTest, ScenarioFailsAndTheOperatorReportsForbidden) {
  const RemovedRule& removed = GetParam();
  // Gone from every ClusterRole of the bundle (several may grant it).
  int reduced_roles = 0;
  for (const Json& d : Bundle()) {
    if (d.value("kind", "") != "ClusterRole") continue;
    auto role = client().Get(kClusterRoles, "", d["metadata"]["name"].get<std::string>());
    ASSERT_TRUE(role.ok()) << role.status();
    Json reduced = *role;
    reduced["rules"] =
        WithoutPermission((*role)["rules"], removed.group, removed.resource, removed.verb);
    if (reduced["rules"] == (*role)["rules"]) continue;
    ASSERT_TRUE(client().Update(kClusterRoles, "", reduced).ok());
    ++reduced_roles;
  }
  ASSERT_GT(reduced_roles, 0) << "the bundle grants " << removed.resource << " " << removed.verb;

  ASSERT_NO_FATAL_FAILURE(StartOperator());
  ASSERT_TRUE(Eventually([&] { return WebhooksPatched(); }, absl::Seconds(60))) << op_->Log();
  CreateEtcdCluster("etcd");
  EXPECT_TRUE(Eventually([&] { return OperatorSaid(removed.evidence); }, absl::Seconds(90)))
      << "expected \"" << removed.evidence << "\" in:\n"
      << op_->Log();
  // With the permission gone, the scenario does not complete.
  const bool complete = Exists({"apps", "v1", "statefulsets"}, "etcd") &&
                        ReadyReason("etcd") == "WaitingForFirstQuorum";
  EXPECT_FALSE(complete) << "reconciled without " << removed.resource << " " << removed.verb;
  op_->Stop(SIGTERM);
  ApplyBundle();  // restores the ClusterRole and the webhook configurations
}

INSTANTIATE_TEST_SUITE_P(
    Rules, MissingRuleTest,
    ::testing::Values(RemovedRule{"apps", "statefulsets", "patch",
                                  R"(cannot patch resource "statefulsets")"},
                      RemovedRule{"etcd.aenix.io", "etcdclusters/status", "patch",
                                  R"(cannot patch resource "etcdclusters/status")"},
                      RemovedRule{"", "secrets", "list", R"(cannot list resource "secrets")"}),
    [](const ::testing::TestParamInfo<RemovedRule>& info) {
      std::string name = info.param.resource + "_" + info.param.verb;
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

// After the scenario above (gtest runs a suite's tests in definition order),
// whose requests the audit log then holds.
TEST_F(BundleRbacTest, EveryGrantedPermissionWasUsedOrHasAReason) {
  std::set<std::string> granted;
  for (const Json& d : Bundle()) {
    const std::string kind = d.value("kind", "");
    if (kind != "ClusterRole" && kind != "Role") continue;
    for (const Json& rule : d["rules"]) {
      for (const std::string& p : Permissions(rule)) granted.insert(p);
    }
  }
  std::set<std::string> used;
  std::ifstream audit(control_plane().dir + "/logs/audit.log");
  ASSERT_TRUE(audit.good()) << "no audit log: is QUORUM_CONTROLPLANE_AUDIT honoured?";
  std::string line;
  int forbidden_outside_variants = 0;
  while (std::getline(audit, line)) {
    Json e = Json::parse(line, nullptr, false);
    if (e.is_discarded() || e["user"].value("username", "") != kUser) continue;
    const Json ref = e.value("objectRef", Json::object());
    if (!ref.contains("resource")) continue;  // discovery and other non-resource paths
    const int code = e.value("responseStatus", Json::object()).value("code", 0);
    std::string resource = ref.value("resource", "");
    if (ref.contains("subresource")) resource += "/" + ref.value("subresource", "");
    const std::string group = ref.value("apiGroup", "");
    const std::string perm =
        absl::StrCat(group.empty() ? "" : group + "/", resource, " ", e.value("verb", ""));
    if (code == 403) {
      if (!granted.count(perm)) continue;  // a rule a MissingRuleTest removed
      ++forbidden_outside_variants;
      ADD_FAILURE() << "forbidden although granted: " << perm;
    }
    used.insert(perm);
    // A server-side apply that creates its object (201) was also authorized
    // as create: the audit event only names the request's verb.
    if (e.value("verb", "") == "patch" && code == 201) {
      used.insert(absl::StrCat(group.empty() ? "" : group + "/", resource, " create"));
    }
  }
  EXPECT_EQ(forbidden_outside_variants, 0);
  for (const std::string& p : used) {
    EXPECT_TRUE(granted.count(p)) << "used without a rule (the audit log is confused?): " << p;
  }
  for (const std::string& p : granted) {
    if (used.count(p)) continue;
    auto reason = kMayBeUnused.find(p);
    if (reason != kMayBeUnused.end()) {
      std::printf("unused permission (expected: %s): %s\n", reason->second.c_str(), p.c_str());
    } else {
      ADD_FAILURE() << "permission nobody used: " << p
                    << " — drop it from deploy/rbac, or exercise it here, or list it in "
                       "kMayBeUnused with the reason";
    }
  }
  for (const std::string& p : used) std::printf("used: %s\n", p.c_str());
}

}  // namespace
}  // namespace quorum::deploytest
