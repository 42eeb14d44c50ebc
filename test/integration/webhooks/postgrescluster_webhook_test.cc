// The PostgresCluster webhooks called by the real kube-apiserver: API.md's
// example is accepted, a minimal manifest is defaulted (including what the
// schema cannot default, the data volume's access mode), the rules that only
// the webhook holds (storage sizes, endpoint ports, option clashes) refuse
// manifests with messages naming the field, warnings reach the client, and
// updates are checked against the stored object.
#include "src/webhooks/postgrescluster_webhook.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "src/kube/client.h"
#include "src/kube/errors.h"
#include "src/runtime/certs.h"
#include "src/runtime/http_server.h"
#include "test/examples/examples.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::webhooks {
namespace {

using kube::Json;
using testenv::Eventually;

const kube::GroupVersionResource kPostgresClusters{"postgres.quorum.dev", "v1alpha1",
                                                   "postgresclusters"};
const kube::GroupVersionResource kValidating{"admissionregistration.k8s.io", "v1",
                                             "validatingwebhookconfigurations"};
const kube::GroupVersionResource kMutating{"admissionregistration.k8s.io", "v1",
                                           "mutatingwebhookconfigurations"};

Json Cluster(const std::string& name, const char* spec_patch = "{}") {
  Json obj = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
              {"kind", "PostgresCluster"},
              {"metadata", {{"name", name}}},
              {"spec", Json::parse(R"({"postgresVersion": 17, "instances": [
                  {"replicas": 2, "dataVolumeClaimSpec": {
                   "resources": {"requests": {"storage": "1Gi"}}}}]})")}};
  obj["spec"].merge_patch(Json::parse(spec_patch));
  return obj;
}

Json WebhookConfiguration(const std::string& kind, const std::string& name,
                          const std::string& webhook, const std::string& url,
                          const std::string& ca_pem, const std::string& ns) {
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", kind},
          {"metadata", {{"name", name}}},
          {"webhooks",
           Json::array(
               {{{"name", webhook},
                 {"clientConfig", {{"url", url}, {"caBundle", absl::Base64Escape(ca_pem)}}},
                 {"rules", Json::array({{{"apiGroups", {"postgres.quorum.dev"}},
                                         {"apiVersions", {"v1alpha1"}},
                                         {"operations", {"CREATE", "UPDATE"}},
                                         {"resources", {"postgresclusters"}},
                                         {"scope", "Namespaced"}}})},
                 {"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", ns}}}}},
                 {"failurePolicy", "Fail"},
                 {"sideEffects", "None"},
                 {"admissionReviewVersions", {"v1"}},
                 {"timeoutSeconds", 5}}})}};
}

class PostgresClusterWebhookTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    absl::Status installed =
        testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) +
                                          "/deploy/crds/postgres.quorum.dev_postgresclusters.yaml");
    ASSERT_TRUE(installed.ok()) << installed;
    std::string tmpl = ::testing::TempDir() + "pg-webhook-it-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    StartWebhooks();
  }

  void TearDown() override {
    // failurePolicy Fail: a configuration must not outlive its server.
    for (const auto& [gvr, name] : configurations_) (void)client().Delete(gvr, "", name);
    if (server_ != nullptr) server_->Stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    IntegrationTest::TearDown();
  }

  void StartWebhooks() {
    auto ca = runtime::GenerateCA("pg-webhook-it-ca", absl::Hours(1), absl::Now());
    ASSERT_TRUE(ca.ok()) << ca.status();
    auto serving =
        runtime::GenerateServingCert(*ca, "", {}, {"127.0.0.1"}, absl::Hours(1), absl::Now());
    ASSERT_TRUE(serving.ok()) << serving.status();
    std::ofstream(dir_ + "/tls.crt") << serving->cert_pem;
    std::ofstream(dir_ + "/tls.key") << serving->key_pem;
    server_ = std::make_unique<runtime::WebhookServer>(
        runtime::WebhookServer::Options{.bind_address = "127.0.0.1",
                                        .cert_file = dir_ + "/tls.crt",
                                        .key_file = dir_ + "/tls.key"});
    ASSERT_TRUE(RegisterPostgresClusterWebhooks(*server_).ok());
    ASSERT_TRUE(server_->Start().ok());

    const std::string base = "https://127.0.0.1:" + std::to_string(server_->port());
    CreateConfiguration(
        kMutating,
        WebhookConfiguration("MutatingWebhookConfiguration", ns() + "-mutate",
                             "mpostgrescluster.postgres.quorum.dev",
                             base + std::string(kMutatePostgresClusterPath), ca->cert_pem, ns()));
    CreateConfiguration(
        kValidating,
        WebhookConfiguration("ValidatingWebhookConfiguration", ns() + "-validate",
                             "vpostgrescluster.postgres.quorum.dev",
                             base + std::string(kValidatePostgresClusterPath), ca->cert_pem, ns()));
    // The API server picks configurations up within a moment. Only the
    // mutating webhook fills in accessModes, and only the validating one
    // refuses a zero-sized volume: when both behave, both are live.
    int attempt = 0;
    absl::Status last;
    const bool live = Eventually(
        [&] {
          const std::string name = "probe-" + std::to_string(attempt++);
          auto defaulted = client().Create(kPostgresClusters, ns(), Cluster(name));
          if (!defaulted.ok()) {
            last = defaulted.status();
            return false;
          }
          (void)client().Delete(kPostgresClusters, ns(), name);
          if (!(*defaulted)["spec"]["instances"][0]["dataVolumeClaimSpec"].contains(
                  "accessModes")) {
            last = absl::UnknownError("not defaulted yet");
            return false;
          }
          auto refused = client().Create(
              kPostgresClusters, ns(),
              Cluster(
                  name + "-x",
                  R"({"instances": [{"dataVolumeClaimSpec": {"resources": {"requests": {"storage": "0"}}}}]})"));
          last = refused.status();
          if (refused.ok()) (void)client().Delete(kPostgresClusters, ns(), name + "-x");
          return absl::StrContains(last.message(), "denied the request");
        },
        absl::Seconds(30));
    ASSERT_TRUE(live) << "webhooks not picked up; last: " << last;
  }

  void CreateConfiguration(const kube::GroupVersionResource& gvr, const Json& config) {
    auto created = client().Create(gvr, "", config);
    ASSERT_TRUE(created.ok()) << created.status();
    configurations_.emplace_back(gvr, config["metadata"]["name"].get<std::string>());
  }

  absl::Status MergePatch(const std::string& name, const char* patch) {
    return client()
        .Patch(kPostgresClusters, ns(), name, kube::PatchType::kMerge, Json::parse(patch))
        .status();
  }

  std::string dir_;
  std::unique_ptr<runtime::WebhookServer> server_;
  std::vector<std::pair<kube::GroupVersionResource, std::string>> configurations_;
};

TEST_F(PostgresClusterWebhookTest, TheApiExampleIsAcceptedAndAMinimalOneDefaulted) {
  Json example = examples::PostgresClusterDesignExample();
  ASSERT_TRUE(example.is_object());
  example["metadata"]["namespace"] = ns();
  auto created = client().Create(kPostgresClusters, ns(), example);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ((*created)["spec"]["patroni"]["dcs"]["type"], "etcd");

  Json minimal = Cluster("minimal");
  minimal["spec"]["instances"][0].erase("replicas");
  auto defaulted = client().Create(kPostgresClusters, ns(), minimal);
  ASSERT_TRUE(defaulted.ok()) << defaulted.status();
  const Json& set = (*defaulted)["spec"]["instances"][0];
  EXPECT_EQ(set["name"], "main");
  EXPECT_EQ(set["replicas"], 1);
  EXPECT_EQ(set["dataVolumeClaimSpec"]["accessModes"], Json::array({"ReadWriteOnce"}));
  EXPECT_EQ((*defaulted)["spec"]["patroni"]["dcs"]["type"], "kubernetes");
}

struct InvalidManifest {
  const char* name;
  const char* spec_patch;
  const char* field;  // must appear in the error the client gets
};

TEST_F(PostgresClusterWebhookTest, InvalidManifestsAreRefusedNamingTheField) {
  constexpr char kSize[] = "spec.instances[0].dataVolumeClaimSpec.resources.requests.storage";
  const InvalidManifest cases[] = {
      // Only the webhook can tell these (no CEL rule parses quantities or ports).
      {"zero-size",
       R"({"instances": [{"dataVolumeClaimSpec": {"resources": {"requests": {"storage": "0"}}}}]})",
       kSize},
      {"port-out-of-range",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://etcd:99999"]}}}})",
       "spec.patroni.dcs.etcd.endpoints[0]"},
      {"postgres-from-bad-cidr",
       R"({"networkPolicy": {"postgresFrom": [{"ipBlock": {"cidr": "10.1.2.3/8"}}]}})",
       "spec.networkPolicy.postgresFrom[0].ipBlock.cidr"},
      {"postgres-from-bad-label",
       R"({"networkPolicy": {"postgresFrom": [{"podSelector": {"matchLabels": {"app": "a b"}}}]}})",
       "spec.networkPolicy.postgresFrom[0].podSelector.matchLabels[app]"},
      {"negative-size",
       R"({"instances": [{"dataVolumeClaimSpec": {"resources": {"requests": {"storage": "-1Gi"}}}}]})",
       kSize},
      // A switchover target that cannot name a member (issue 33: a typo).
      {"switchover-typo",
       R"({"patroni": {"switchover": {"enabled": true, "targetInstance": "nobody-0"}}})",
       "spec.patroni.switchover.targetInstance"},
      // These the CRD refuses already: the schema and its CEL rules run
      // before validating webhooks, with the webhooks installed or not.
      {"duplicate-database", R"({"users": [{"name": "app", "databases": ["app", "app"]}]})",
       "spec.users[0].databases"},
      {"kubernetes-without-api", R"({"patroni": {"podAPIAccess": false}})",
       "spec.patroni.podAPIAccess"},
      {"timings", R"({"patroni": {"leaderLeaseDurationSeconds": 25}})",
       "spec.patroni.leaderLeaseDurationSeconds"},
      {"reserved-user", R"({"users": [{"name": "postgres"}]})", "spec.users[0].name"},
      {"both-etcd-sources",
       R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://etcd:2379"], "clusterRef": {"name": "dcs"}}}}})",
       "spec.patroni.dcs.etcd"},
      // Issue 14: no object may ask the operator for fifty million members.
      {"fifty-million",
       R"({"instances": [{"replicas": 50000000, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]})",
       "spec.instances[0].replicas"},
  };
  for (const InvalidManifest& c : cases) {
    auto created = client().Create(kPostgresClusters, ns(), Cluster(c.name, c.spec_patch));
    EXPECT_FALSE(created.ok()) << c.name << " was accepted";
    EXPECT_TRUE(kube::IsInvalid(created.status()) || kube::IsForbidden(created.status()))
        << c.name << ": " << created.status();
    EXPECT_TRUE(absl::StrContains(created.status().message(), c.field))
        << c.name << ": the error does not name " << c.field << ": " << created.status();
  }
  // The webhook's own message says how to fix it.
  auto zero = client().Create(
      kPostgresClusters, ns(),
      Cluster(
          "zero",
          R"({"instances": [{"dataVolumeClaimSpec": {"resources": {"requests": {"storage": "0"}}}}]})"));
  EXPECT_TRUE(absl::StrContains(zero.status().message(), "denied the request")) << zero.status();
  EXPECT_TRUE(absl::StrContains(
      zero.status().message(),
      "spec.instances[0].dataVolumeClaimSpec.resources.requests.storage: must be larger than 0"))
      << zero.status();
}

// Issue 34: what Quorum owns in Patroni's dynamic configuration is refused,
// naming the key; pg_hba rules go through spec.authentication, where trust
// from the network is refused.
TEST_F(PostgresClusterWebhookTest, EveryOwnedDynamicConfigurationKeyIsRefusedNamingIt) {
  struct Owned {
    const char* dynamic;
    const char* key;  // the field after spec.patroni.dynamicConfiguration.
  };
  const Owned owned[] = {
      {R"({"postgresql": {"pg_hba": ["host all all 0.0.0.0/0 trust"]}})", "postgresql.pg_hba"},
      {R"({"postgresql": {"parameters": {"ssl": "off"}}})", "postgresql.parameters.ssl"},
      {R"({"postgresql": {"parameters": {"ssl_key_file": "/tmp/k"}}})",
       "postgresql.parameters.ssl_key_file"},
      {R"({"postgresql": {"parameters": {"archive_command": "/bin/true"}}})",
       "postgresql.parameters.archive_command"},
      {R"({"postgresql": {"parameters": {"archive_mode": "off"}}})",
       "postgresql.parameters.archive_mode"},
      {R"({"postgresql": {"parameters": {"restore_command": "/bin/true"}}})",
       "postgresql.parameters.restore_command"},
      {R"({"postgresql": {"parameters": {"listen_addresses": "*"}}})",
       "postgresql.parameters.listen_addresses"},
      {R"({"postgresql": {"parameters": {"unix_socket_directories": "/tmp"}}})",
       "postgresql.parameters.unix_socket_directories"},
      {R"({"postgresql": {"parameters": {"data_directory": "/tmp"}}})",
       "postgresql.parameters.data_directory"},
      {R"({"postgresql": {"parameters": {"wal_level": "minimal"}}})",
       "postgresql.parameters.wal_level"},
      {R"({"postgresql": {"parameters": {"password_encryption": "md5"}}})",
       "postgresql.parameters.password_encryption"},
      {R"({"postgresql": {"authentication": {"replication": {"username": "x"}}}})",
       "postgresql.authentication"},
      {R"({"postgresql": {"bin_dir": "/tmp"}})", "postgresql.bin_dir"},
      {R"({"ttl": 60})", "ttl"},
      {R"({"loop_wait": 5})", "loop_wait"},
      {R"({"retry_timeout": 5})", "retry_timeout"},
      {R"({"standby_cluster": {"host": "elsewhere"}})", "standby_cluster"},
  };
  int i = 0;
  for (const Owned& c : owned) {
    Json obj = Cluster("owned-" + std::to_string(i++));
    obj["spec"]["patroni"] = {{"dynamicConfiguration", Json::parse(c.dynamic)}};
    const std::string field = std::string("spec.patroni.dynamicConfiguration.") + c.key;
    auto created = client().Create(kPostgresClusters, ns(), obj);
    EXPECT_FALSE(created.ok()) << c.dynamic << " was accepted";
    EXPECT_TRUE(absl::StrContains(created.status().message(), field + ": may not be set"))
        << c.dynamic << ": the error does not name " << field << ": " << created.status();
  }
  // Tuning passes, and pg_hba rules through the typed field.
  auto tuned = client().Create(
      kPostgresClusters, ns(),
      Cluster("tuned", R"({"patroni": {"dynamicConfiguration": {"postgresql": {"parameters":
          {"work_mem": "8MB", "archive_timeout": "30s", "ssl_min_protocol_version": "TLSv1.3"}}}},
          "authentication": {"rules": [{"users": ["app"], "address": "10.0.0.0/8",
                                        "method": "scram-sha-256"}]}})"));
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  EXPECT_EQ((*tuned)["spec"]["authentication"]["rules"][0]["connection"], "hostssl")
      << "the schema defaults the connection";
  auto trust =
      client().Create(kPostgresClusters, ns(),
                      Cluster("trust", R"({"authentication": {"rules": [{"address": "0.0.0.0/0",
                                                           "method": "trust"}]}})"));
  EXPECT_TRUE(absl::StrContains(trust.status().message(), "spec.authentication.rules[0].method"))
      << trust.status();
}

TEST_F(PostgresClusterWebhookTest, UpdatesAreValidatedAgainstTheStoredObject) {
  ASSERT_TRUE(client()
                  .Create(kPostgresClusters, ns(),
                          Cluster("grow", R"({"instances": [{"replicas": 3, "dataVolumeClaimSpec":
                              {"resources": {"requests": {"storage": "10Gi"}}}}]})"))
                  .ok());
  absl::Status s = MergePatch(
      "grow",
      R"({"spec": {"instances": [{"replicas": 3, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "5Gi"}}}}]}})");
  EXPECT_TRUE(absl::StrContains(
      s.message(),
      "spec.instances[0].dataVolumeClaimSpec.resources.requests.storage: cannot shrink from 10Gi "
      "to 5Gi"))
      << s;
  EXPECT_TRUE(
      MergePatch(
          "grow",
          R"({"spec": {"instances": [{"replicas": 3, "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "20Gi"}}}}]}})")
          .ok());
  s = MergePatch(
      "grow",
      R"({"spec": {"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://e:2379"]}}}}})");
  EXPECT_TRUE(absl::StrContains(s.message(), "spec.patroni.dcs.type")) << s;
  // Adding a label leaves the spec alone and always passes.
  EXPECT_TRUE(MergePatch("grow", R"({"metadata": {"labels": {"team": "db"}}})").ok());
}

// Issue 16: the in-place restore's annotation is refused while the spec
// does not enable it; with restore enabled (same patch or before) it passes.
TEST_F(PostgresClusterWebhookTest, ARestoreTriggerNeedsTheRestoreEnabled) {
  constexpr char kRepo[] =
      R"({"backups": {"pgbackrest": {"repos": [{"name": "repo1", "s3": {"bucket": "b", "endpoint": "s3.local", "region": "r"}}]}}})";
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("undo", kRepo)).ok());
  absl::Status s = MergePatch(
      "undo", R"({"metadata": {"annotations": {"postgres.quorum.dev/pgbackrest-restore": "1"}}})");
  EXPECT_TRUE(absl::StrContains(
      s.message(),
      "metadata.annotations[postgres.quorum.dev/pgbackrest-restore]: asks for an "
      "in-place restore, but spec.backups.pgbackrest.restore.enabled is not true"))
      << s;
  s = MergePatch(
      "undo",
      R"({"metadata": {"annotations": {"postgres.quorum.dev/pgbackrest-restore": "1"}}, "spec": {"backups": {"pgbackrest": {"restore": {"enabled": true, "repoName": "repo2"}}}}})");
  EXPECT_TRUE(absl::StrContains(s.message(), "spec.backups.pgbackrest.restore.repoName")) << s;
  EXPECT_TRUE(
      MergePatch(
          "undo",
          R"({"metadata": {"annotations": {"postgres.quorum.dev/pgbackrest-restore": "1"}}, "spec": {"backups": {"pgbackrest": {"restore": {"enabled": true, "repoName": "repo1", "target": {"time": "2026-12-04T10:15:00Z"}}}}}})")
          .ok());
}

// Issue 14: where Patroni keeps its keys cannot move under a running cluster
// (members at the old and the new location could both lead).
TEST_F(PostgresClusterWebhookTest, TheDcsLocationCannotMove) {
  ASSERT_TRUE(
      client()
          .Create(
              kPostgresClusters, ns(),
              Cluster(
                  "located",
                  R"({"patroni": {"dcs": {"type": "etcd", "etcd": {"endpoints": ["http://e0:2379", "http://e1:2379"]}}}})"))
          .ok());
  struct Move {
    const char* patch;
    const char* field;
  } refused[] = {
      {R"({"spec": {"patroni": {"dcs": {"etcd": {"endpoints": ["http://other:2379"]}}}}})",
       "spec.patroni.dcs.etcd.endpoints"},
      {R"({"spec": {"patroni": {"dcs": {"etcd": {"namespace": "/elsewhere/"}}}}})",
       "spec.patroni.dcs.etcd.namespace"},
      {R"({"spec": {"patroni": {"dcs": {"etcd": {"endpoints": null, "clusterRef": {"name": "dcs"}}}}}})",
       "spec.patroni.dcs.etcd.clusterRef"},
  };
  for (const Move& m : refused) {
    absl::Status s = MergePatch("located", m.patch);
    EXPECT_TRUE(kube::IsInvalid(s) || kube::IsForbidden(s)) << m.patch << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), m.field)) << m.patch << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "create a new PostgresCluster")) << s;
  }
  // The same endpoints in another order, and a label, are no move.
  EXPECT_TRUE(
      MergePatch(
          "located",
          R"({"spec": {"patroni": {"dcs": {"etcd": {"endpoints": ["http://e1:2379", "http://e0:2379"]}}}}})")
          .ok());
  EXPECT_TRUE(MergePatch("located", R"({"metadata": {"labels": {"team": "db"}}})").ok());
}

TEST_F(PostgresClusterWebhookTest, WarningsReachTheClient) {
  // One instance in total: allowed, with a warning in the response headers.
  // The client does not surface warnings, so ask kubectl, which prints them.
  const std::string manifest = ::testing::TempDir() + "pg-single-" + ns() + ".json";
  std::ofstream(manifest) << Cluster("single", R"({"instances": [{"replicas": 1,
      "dataVolumeClaimSpec": {"resources": {"requests": {"storage": "1Gi"}}}}]})")
                                 .dump();
  const std::string out = manifest + ".out";
  const std::string command = control_plane().bin_dir + "/kubectl --kubeconfig " +
                              control_plane().kubeconfig + " -n " + ns() + " create -f " +
                              manifest + " >" + out + " 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(manifest);
  std::filesystem::remove(out);
  EXPECT_EQ(rc, 0) << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), "Warning: spec.instances: one instance in total"))
      << text.str();
}

}  // namespace
}  // namespace quorum::webhooks
