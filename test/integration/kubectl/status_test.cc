// `kubectl quorum status` end to end on the real control plane: the built
// kubectl-quorum run as a subprocess with a kubeconfig, as kubectl runs it,
// against an EtcdCluster and a PostgresCluster whose status subresources,
// member pods and backups the test wrote. Checked: the JSON document, the
// exit codes (0 Ready, 1 not ready, 2 not found or ambiguous, 3 API
// unreachable; backups forbidden by RBAC do not change it), the namespace from --namespace and from
// the kubeconfig's context, and a bare NAME. The text screens are kept in
// <build>/kubectl-quorum-capture/ for docs/kubectl-quorum.md.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/escaping.h"
#include "src/controllers/common/resources.h"
#include "src/kube/resources.h"
#include "test/integration/kubectl/objects.h"
#include "test/integration/kubectl/run_plugin.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::kubectl {
namespace {

using controllers::kEtcdBackups;
using controllers::kEtcdClusters;
using controllers::kPostgresBackups;
using controllers::kPostgresClusters;
using testing::Json;
using testing::RunPlugin;

class KubectlQuorumStatusTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    for (const char* crd : {"etcd.aenix.io_etcdclusters.yaml", "etcd.aenix.io_etcdbackups.yaml",
                            "postgres.quorum.dev_postgresclusters.yaml",
                            "postgres.quorum.dev_postgresbackups.yaml"}) {
      ASSERT_TRUE(
          testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/" + crd)
              .ok())
          << crd;
    }
  }

  void Create(const kube::GroupVersionResource& gvr, const Json& object, const Json& status) {
    const std::string name = object["metadata"]["name"];
    auto created = client().Create(gvr, ns(), object);
    ASSERT_TRUE(created.ok()) << name << ": " << created.status();
    if (status.is_null()) return;
    auto patched =
        client().Patch(gvr, ns(), name, kube::PatchType::kMerge, status, {.subresource = "status"});
    ASSERT_TRUE(patched.ok()) << name << " status: " << patched.status();
  }

  // EtcdCluster `name` with three member pods and one Complete backup.
  void CreateEtcd(const std::string& name) {
    Create(kEtcdClusters, testing::EtcdClusterManifest(name),
           testing::EtcdClusterStatus(name, ns(), true));
    for (int i = 0; i < 3; ++i) {
      Create(kube::kPods,
             testing::Pod(name + "-" + std::to_string(i),
                          {{"app.kubernetes.io/name", "etcd"},
                           {"app.kubernetes.io/instance", name},
                           {"app.kubernetes.io/managed-by", "quorum-operator"}}),
             testing::PodStatus(true));
    }
    Create(kEtcdBackups, testing::EtcdBackupManifest(name + "-nightly", name),
           testing::EtcdBackupStatus(name + "-nightly"));
  }

  // PostgresCluster `name` on `etcd`: a primary, two replicas, one backup.
  void CreatePostgres(const std::string& name, const std::string& etcd) {
    Create(kPostgresClusters, testing::PostgresClusterManifest(name, etcd),
           testing::PostgresClusterStatus(name));
    for (int i = 0; i < 3; ++i) {
      Create(kube::kPods,
             testing::Pod(name + "-main-" + std::to_string(i),
                          {{"postgres.quorum.dev/cluster", name},
                           {"postgres.quorum.dev/instance-set", "main"},
                           {"role", i == 1 ? "primary" : "replica"}}),
             testing::PodStatus(true));
    }
    Create(kPostgresBackups, testing::PostgresBackupManifest("nightly", name),
           testing::PostgresBackupStatus());
  }

  testing::PluginRun Run(std::vector<std::string> args) {
    args.insert(args.begin(), {"--kubeconfig", control_plane().kubeconfig});
    return RunPlugin(args, {{"KUBECONFIG", ""}});
  }

  // A copy of the control plane's kubeconfig whose current context names
  // `context_ns` (or, with `server`, points at another API server).
  std::string KubeconfigCopy(const std::string& context_ns, const std::string& server = "") {
    YAML::Node config = YAML::LoadFile(control_plane().kubeconfig);
    const std::string current = config["current-context"].as<std::string>();
    for (YAML::Node c : config["contexts"]) {
      if (c["name"].as<std::string>() == current) c["context"]["namespace"] = context_ns;
    }
    if (!server.empty()) {
      for (YAML::Node c : config["clusters"]) c["cluster"]["server"] = server;
    }
    const std::string path = std::string(QUORUM_BINARY_DIR) + "/kubeconfig-" + ns();
    std::ofstream(path) << YAML::Dump(config);
    kubeconfig_copies_.push_back(path);
    return path;
  }

  // A kubeconfig whose user is a ServiceAccount of the test's namespace
  // (a bound token) with a Role that may read the cluster kinds and pods
  // only: listing EtcdBackups or PostgresBackups is forbidden to it.
  std::string KubeconfigWithoutBackupAccess() {
    const kube::GroupVersionResource sas{"", "v1", "serviceaccounts"},
        roles{"rbac.authorization.k8s.io", "v1", "roles"},
        bindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
    const std::string user = "no-backups";
    EXPECT_TRUE(client().Create(sas, ns(), {{"metadata", {{"name", user}}}}).ok());
    const Json rules = {{{"apiGroups", {"etcd.aenix.io"}},
                         {"resources", {"etcdclusters"}},
                         {"verbs", {"get", "list"}}},
                        {{"apiGroups", {"postgres.quorum.dev"}},
                         {"resources", {"postgresclusters"}},
                         {"verbs", {"get", "list"}}},
                        {{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list"}}}};
    EXPECT_TRUE(client()
                    .Create(roles, ns(),
                            {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                             {"kind", "Role"},
                             {"metadata", {{"name", user}}},
                             {"rules", rules}})
                    .ok());
    EXPECT_TRUE(
        client()
            .Create(
                bindings, ns(),
                {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                 {"kind", "RoleBinding"},
                 {"metadata", {{"name", user}}},
                 {"roleRef",
                  {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", user}}},
                 {"subjects", {{{"kind", "ServiceAccount"}, {"name", user}, {"namespace", ns()}}}}})
            .ok());
    auto token = client().CreateSubresource(sas, ns(), user, "token",
                                            {{"apiVersion", "authentication.k8s.io/v1"},
                                             {"kind", "TokenRequest"},
                                             {"spec", {{"expirationSeconds", 3600}}}});
    EXPECT_TRUE(token.ok()) << token.status();
    if (!token.ok()) return "";
    const std::string path = std::string(QUORUM_BINARY_DIR) + "/kubeconfig-sa-" + ns();
    std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                        << "    server: " << control_plane().config.server
                        << "\n    certificate-authority-data: "
                        << absl::Base64Escape(control_plane().config.ca_pem)
                        << "\nusers:\n- name: u\n  user:\n    token: "
                        << (*token)["status"]["token"].get<std::string>()
                        << "\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: "
                        << ns() << "}\ncurrent-context: c\n";
    kubeconfig_copies_.push_back(path);
    return path;
  }

  void TearDown() override {
    for (const std::string& path : kubeconfig_copies_) std::filesystem::remove(path);
    IntegrationTest::TearDown();
  }

  static void Capture(const std::string& file, const std::string& text) {
    const std::filesystem::path dir = std::string(QUORUM_BINARY_DIR) + "/kubectl-quorum-capture";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / file) << text;
  }

 private:
  std::vector<std::string> kubeconfig_copies_;
};

Json ParseJson(const testing::PluginRun& run) {
  Json doc = Json::parse(run.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << run.out << run.err;
  return doc;
}

TEST_F(KubectlQuorumStatusTest, ShowsAReadyEtcdClusterWithItsMembersAndLastBackup) {
  CreateEtcd("etcd-a");
  const testing::PluginRun run = Run({"status", "ec/etcd-a", "-n", ns(), "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json doc = ParseJson(run);
  Capture("etcd-ready.json", run.out);
  EXPECT_EQ(doc["apiVersion"], "kubectl-quorum/v1");
  EXPECT_EQ(doc["kind"], "EtcdClusterStatus");
  EXPECT_EQ(doc["phase"], "Ready");
  EXPECT_EQ(doc["healthy"], true);
  EXPECT_EQ(doc["replicas"], (Json{{"desired", 3}, {"ready", 3}}));
  ASSERT_EQ(doc["members"].size(), 3u) << doc.dump(2);
  EXPECT_EQ(doc["members"][0], (Json{{"name", "etcd-a-0"},
                                     {"id", "8e9e05c52164694d"},
                                     {"role", "leader"},
                                     {"version", "3.6.16"},
                                     {"healthy", true},
                                     {"pod", "Running, ready"}}));
  EXPECT_EQ(doc["members"][2]["role"], "follower");
  EXPECT_EQ(doc["backups"]["lastComplete"]["name"], "etcd-a-nightly");
  EXPECT_EQ(doc["backups"]["lastComplete"]["size"], 4259840);
  EXPECT_EQ(doc["security"]["peerTLS"], false);

  const testing::PluginRun text = Run({"status", "etcdcluster/etcd-a", "-n", ns()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << "no colour when stdout is no TTY";
  EXPECT_NE(text.out.find("etcd-a-0  8e9e05c52164694d  leader"), std::string::npos) << text.out;
  Capture("etcd-ready.txt", text.out);
}

TEST_F(KubectlQuorumStatusTest, ExitsOneWhileTheEtcdClusterIsNotReady) {
  CreateEtcd("etcd-a");
  auto patched =
      client().Patch(kEtcdClusters, ns(), "etcd-a", kube::PatchType::kMerge,
                     testing::EtcdClusterStatus("etcd-a", ns(), false), {.subresource = "status"});
  ASSERT_TRUE(patched.ok()) << patched.status();
  const testing::PluginRun run = Run({"status", "ec/etcd-a", "-n", ns(), "-o", "json"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const Json doc = ParseJson(run);
  EXPECT_EQ(doc["phase"], "NotReady");
  EXPECT_EQ(doc["members"][2]["healthy"], false);
  Capture("etcd-not-ready.txt", Run({"status", "ec/etcd-a", "-n", ns()}).out);
}

TEST_F(KubectlQuorumStatusTest, ShowsAPostgresClusterFromTheContextNamespaceAndABareName) {
  CreateEtcd("etcd-a");
  CreatePostgres("pg-a", "etcd-a");
  // No -n: the namespace is the kubeconfig context's, found through $KUBECONFIG.
  const testing::PluginRun run =
      RunPlugin({"status", "pg-a", "-o", "json"}, {{"KUBECONFIG", KubeconfigCopy(ns())}});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json doc = ParseJson(run);
  Capture("postgres-ready.json", run.out);
  EXPECT_EQ(doc["kind"], "PostgresClusterStatus");
  EXPECT_EQ(doc["namespace"], ns());
  EXPECT_EQ(doc["primary"], "pg-a-main-1");
  EXPECT_EQ(doc["dcs"], "etcd (EtcdCluster etcd-a)");
  EXPECT_EQ(doc["instanceSets"][0],
            (Json{{"name", "main"}, {"desired", 3}, {"ready", 3}, {"updated", 3}}));
  ASSERT_EQ(doc["members"].size(), 3u) << doc.dump(2);
  EXPECT_EQ(doc["members"][1]["role"], "primary");
  EXPECT_EQ(doc["members"][0]["role"], "replica");
  EXPECT_EQ(doc["members"][0]["ready"], true);
  EXPECT_EQ(doc["repos"][0]["lastFull"], "20261206-020000F");
  EXPECT_NE(doc["repos"][0]["recoverableTo"], "");
  EXPECT_EQ(doc["backups"]["last"]["location"], "20261206-020000F in repo1");
  Capture("postgres-ready.txt", Run({"status", "pg/pg-a", "-n", ns()}).out);
}

TEST_F(KubectlQuorumStatusTest, NotFoundAndAmbiguousNamesExitTwoWithAClearMessage) {
  const testing::PluginRun missing = Run({"status", "ec/nope", "-n", ns()});
  Capture("not-found.txt", missing.err);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_EQ(missing.err, "error: EtcdCluster \"nope\" not found in namespace " + ns() + "\n");
  const testing::PluginRun bare = Run({"status", "nope", "-n", ns()});
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_EQ(bare.err, "error: cluster \"nope\" not found in namespace " + ns() + "\n");

  Create(kEtcdClusters, testing::EtcdClusterManifest("both"), nullptr);
  Create(kPostgresClusters, testing::PostgresClusterManifest("both", "etcd-a"), nullptr);
  const testing::PluginRun ambiguous = Run({"status", "both", "-n", ns()});
  EXPECT_EQ(ambiguous.exit_code, 2);
  EXPECT_NE(ambiguous.err.find("say etcdcluster/both or postgrescluster/both"), std::string::npos)
      << ambiguous.err;
  const testing::PluginRun pending = Run({"status", "pg/both", "-n", ns(), "-o", "json"});
  EXPECT_EQ(pending.exit_code, 1) << "no status yet: not ready";
  EXPECT_EQ(ParseJson(pending)["phase"], "Pending");

  EXPECT_EQ(Run({"status", "pods/x"}).exit_code, 2);
  EXPECT_EQ(Run({"status", "-A", "ec/nope"}).exit_code, 2) << "-A takes no name";
}

TEST_F(KubectlQuorumStatusTest, ForbiddenBackupsAreShownAsNotReadableAndTheExitFollowsTheCluster) {
  CreateEtcd("etcd-a");
  CreatePostgres("pg-a", "etcd-a");
  const std::string kubeconfig = KubeconfigWithoutBackupAccess();
  ASSERT_FALSE(kubeconfig.empty());
  const testing::PluginRun etcd =
      RunPlugin({"status", "ec/etcd-a", "-o", "json"}, {{"KUBECONFIG", kubeconfig}});
  ASSERT_EQ(etcd.exit_code, 0) << etcd.out << etcd.err;
  const Json doc = ParseJson(etcd);
  EXPECT_EQ(doc["backups"]["unreadable"], "forbidden: etcdbackups.etcd.aenix.io");
  EXPECT_EQ(doc["backups"]["count"], nullptr);
  EXPECT_EQ(doc["members"].size(), 3u);

  auto patched = client().Patch(
      kPostgresClusters, ns(), "pg-a", kube::PatchType::kMerge,
      {{"status",
        {{"conditions",
          {testing::Condition("Ready", "False", "MemberNotReady", "", absl::Minutes(1))}}}}},
      {.subresource = "status"});
  ASSERT_TRUE(patched.ok()) << patched.status();
  const testing::PluginRun pg = RunPlugin({"status", "pg/pg-a"}, {{"KUBECONFIG", kubeconfig}});
  EXPECT_EQ(pg.exit_code, 1) << pg.out << pg.err;
  EXPECT_NE(pg.out.find("not readable (forbidden: postgresbackups.postgres.quorum.dev)\n"),
            std::string::npos)
      << pg.out;
  EXPECT_NE(pg.out.find("pg-a-main-1"), std::string::npos) << pg.out;
  Capture("postgres-backups-forbidden.txt", pg.out);
}

TEST_F(KubectlQuorumStatusTest, WithoutANameListsEveryClusterAndExitsOneWhenAnyIsNotReady) {
  const testing::PluginRun empty = Run({"status", "-n", ns()});
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "No EtcdClusters or PostgresClusters in namespace " + ns() + ".\n");

  CreateEtcd("etcd-a");
  CreatePostgres("pg-a", "etcd-a");
  const testing::PluginRun ready = Run({"status", "-n", ns(), "-o", "json"});
  ASSERT_EQ(ready.exit_code, 0) << ready.out << ready.err;
  const Json doc = ParseJson(ready);
  EXPECT_EQ(doc["kind"], "ClusterList");
  ASSERT_EQ(doc["items"].size(), 2u) << doc.dump(2);
  EXPECT_EQ(doc["items"][0]["kind"], "EtcdCluster");
  EXPECT_EQ(doc["items"][0]["members"], (Json{{"ready", 3}, {"desired", 3}}));
  EXPECT_EQ(doc["items"][0]["leader"], "etcd-a-0");
  EXPECT_EQ(doc["items"][0]["version"], "3.6.16");
  EXPECT_EQ(doc["items"][1]["kind"], "PostgresCluster");
  EXPECT_EQ(doc["items"][1]["leader"], "pg-a-main-1");
  EXPECT_NE(doc["items"][1]["creationTimestamp"], "");

  auto patched =
      client().Patch(kEtcdClusters, ns(), "etcd-a", kube::PatchType::kMerge,
                     testing::EtcdClusterStatus("etcd-a", ns(), false), {.subresource = "status"});
  ASSERT_TRUE(patched.ok()) << patched.status();
  const testing::PluginRun text = Run({"status", "-n", ns()});
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_NE(text.out.find("EtcdCluster      etcd-a  NotReady  2/3      3.6.16   etcd-a-0"),
            std::string::npos)
      << text.out;
  Capture("list.txt", text.out);

  const testing::PluginRun all = Run({"status", "-A", "-o", "json"});
  EXPECT_EQ(all.exit_code, 1) << all.err;
  int mine = 0;
  const Json listed = ParseJson(all);
  for (const Json& item : listed["items"]) mine += item["namespace"] == ns() ? 1 : 0;
  EXPECT_EQ(mine, 2);
  const testing::PluginRun all_text = Run({"status", "--all-namespaces"});
  EXPECT_EQ(all_text.out.rfind("NAMESPACE  ", 0), 0u) << all_text.out;
  Capture("list-all.txt", all_text.out);
}

TEST_F(KubectlQuorumStatusTest, AnUnreachableApiServerExitsThree) {
  const testing::PluginRun run = RunPlugin(
      {"status", "ec/etcd-a", "--kubeconfig", KubeconfigCopy(ns(), "https://127.0.0.1:1")});
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_NE(run.err.find("error: "), std::string::npos);
}

}  // namespace
}  // namespace quorum::kubectl
