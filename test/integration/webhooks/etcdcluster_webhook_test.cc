// The EtcdCluster webhooks called by the real kube-apiserver: API.md's
// example is accepted and defaulted, a table of invalid manifests is refused
// with messages naming the field, and — with the webhooks removed — the
// CRD's own CEL rules still refuse the changes that must never happen.
#include "src/webhooks/etcdcluster_webhook.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "api/etcdcluster.h"
#include "src/base/strings.h"
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

const kube::GroupVersionResource kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions"};
const kube::GroupVersionResource kEtcdClusters{"etcd.aenix.io", "v1alpha1", "etcdclusters"};
const kube::GroupVersionResource kValidating{"admissionregistration.k8s.io", "v1",
                                             "validatingwebhookconfigurations"};
const kube::GroupVersionResource kMutating{"admissionregistration.k8s.io", "v1",
                                           "mutatingwebhookconfigurations"};
constexpr char kSizePath[] = "spec.storage.volumeClaimTemplate.spec.resources.requests";

// API.md's example manifest.
Json Example(const std::string& name) {
  Json obj = examples::EtcdClusterDesignExample();
  obj["metadata"] = {{"name", name}};
  return obj;
}

Json Cluster(const std::string& name, const char* spec) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdCluster"},
          {"metadata", {{"name", name}}},
          {"spec", Json::parse(spec)}};
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
                 {"rules", Json::array({{{"apiGroups", {"etcd.aenix.io"}},
                                         {"apiVersions", {"v1alpha1"}},
                                         {"operations", {"CREATE", "UPDATE"}},
                                         {"resources", {"etcdclusters"}},
                                         {"scope", "Namespaced"}}})},
                 {"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", ns}}}}},
                 {"failurePolicy", "Fail"},
                 {"sideEffects", "None"},
                 {"admissionReviewVersions", {"v1"}},
                 {"timeoutSeconds", 5}}})}};
}

class EtcdClusterWebhookTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    InstallCrd();
    if (HasFatalFailure()) return;
    std::string tmpl = ::testing::TempDir() + "etcd-webhook-it-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    StartWebhooks();
  }

  void TearDown() override {
    // failurePolicy Fail: a configuration must not outlive its server.
    DeleteConfigurations();
    if (server_ != nullptr) server_->Stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    IntegrationTest::TearDown();
  }

  void InstallCrd() {
    absl::Status installed = testenv::InstallCrd(
        client(), std::string(QUORUM_SOURCE_DIR) + "/deploy/crds/etcd.aenix.io_etcdclusters.yaml");
    ASSERT_TRUE(installed.ok()) << installed;
  }

  void StartWebhooks() {
    auto ca = runtime::GenerateCA("etcd-webhook-it-ca", absl::Hours(1), absl::Now());
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
    ASSERT_TRUE(RegisterEtcdClusterWebhooks(*server_).ok());
    ASSERT_TRUE(server_->Start().ok());

    const std::string base = "https://127.0.0.1:" + std::to_string(server_->port());
    CreateConfiguration(
        kMutating,
        WebhookConfiguration("MutatingWebhookConfiguration", ns() + "-mutate",
                             "metcdcluster.etcd.aenix.io",
                             base + std::string(kMutateEtcdClusterPath), ca->cert_pem, ns()));
    CreateConfiguration(
        kValidating,
        WebhookConfiguration("ValidatingWebhookConfiguration", ns() + "-validate",
                             "vetcdcluster.etcd.aenix.io",
                             base + std::string(kValidateEtcdClusterPath), ca->cert_pem, ns()));
    // The API server picks configurations up within a moment. `storage: {}`
    // is refused by the CRD unless defaulting filled it in, and a reserved
    // option passes the CRD but not the validating webhook: when both
    // behave, both webhooks are live.
    int attempt = 0;
    absl::Status last;
    const bool live = Eventually(
        [&] {
          const std::string name = "probe-" + std::to_string(attempt++);
          auto defaulted = client().Create(kEtcdClusters, ns(),
                                           Cluster(name, R"({"replicas": 1, "storage": {}})"));
          if (!defaulted.ok()) {
            last = defaulted.status();
            return false;
          }
          (void)client().Delete(kEtcdClusters, ns(), name);
          auto refused = client().Create(
              kEtcdClusters, ns(), Cluster(name + "-x", R"({"options": {"data-dir": "/x"}})"));
          last = refused.status();
          if (refused.ok()) (void)client().Delete(kEtcdClusters, ns(), name + "-x");
          return absl::StrContains(last.message(), "spec.options[data-dir]");
        },
        absl::Seconds(30));
    ASSERT_TRUE(live) << "webhooks not picked up; last: " << last;
  }

  void CreateConfiguration(const kube::GroupVersionResource& gvr, const Json& config) {
    auto created = client().Create(gvr, "", config);
    ASSERT_TRUE(created.ok()) << created.status();
    configurations_.emplace_back(gvr, config["metadata"]["name"].get<std::string>());
  }

  void DeleteConfigurations() {
    for (const auto& [gvr, name] : configurations_) (void)client().Delete(gvr, "", name);
    configurations_.clear();
  }

  absl::Status MergePatch(const std::string& name, const char* patch) {
    return client()
        .Patch(kEtcdClusters, ns(), name, kube::PatchType::kMerge, Json::parse(patch))
        .status();
  }

  std::string dir_;
  std::unique_ptr<runtime::WebhookServer> server_;
  std::vector<std::pair<kube::GroupVersionResource, std::string>> configurations_;
};

TEST_F(EtcdClusterWebhookTest, TheApiExampleIsAcceptedAndDefaulted) {
  auto created = client().Create(kEtcdClusters, ns(), Example("example"));
  ASSERT_TRUE(created.ok()) << created.status();
  const Json& spec = (*created)["spec"];
  EXPECT_EQ(spec["replicas"], 3);
  EXPECT_EQ(spec["options"]["max-wals"], "5");
  EXPECT_EQ(spec["storage"]["volumeClaimTemplate"]["spec"]["resources"]["requests"]["storage"],
            "10Gi");
  EXPECT_EQ(spec["podTemplate"]["spec"]["containers"][0]["resources"]["limits"]["memory"], "200Mi");
  EXPECT_EQ(spec["podDisruptionBudgetTemplate"]["spec"]["maxUnavailable"], 1);

  // Only the webhook can complete a partial volumeClaimTemplate.
  auto partial = client().Create(
      kEtcdClusters, ns(),
      Cluster("partial",
              R"({"storage": {"volumeClaimTemplate": {"spec": {"storageClassName": "gp3"}}}})"));
  ASSERT_TRUE(partial.ok()) << partial.status();
  const Json& pvc = (*partial)["spec"]["storage"]["volumeClaimTemplate"]["spec"];
  EXPECT_EQ(pvc["storageClassName"], "gp3");
  EXPECT_EQ(pvc["accessModes"], Json::array({"ReadWriteOnce"}));
  EXPECT_EQ(pvc["resources"]["requests"]["storage"], "4Gi");
  EXPECT_EQ((*partial)["spec"]["replicas"], 3);

  // Scaling to zero and back goes through both webhooks.
  EXPECT_TRUE(
      MergePatch("example", R"({"spec": {"replicas": 0, "podDisruptionBudgetTemplate": null}})")
          .ok());
  EXPECT_TRUE(MergePatch("example", R"({"spec": {"replicas": 5}})").ok());
}

struct InvalidManifest {
  const char* name;
  const char* spec;
  const char* field;  // must appear in the error the client gets
};

TEST_F(EtcdClusterWebhookTest, InvalidManifestsAreRefusedNamingTheField) {
  const InvalidManifest cases[] = {
      {"reserved-option", R"({"options": {"data-dir": "/var/lib/etcd"}})",
       "spec.options[data-dir]"},
      {"reserved-url", R"({"options": {"listen-client-urls": "http://0.0.0.0:2379"}})",
       "spec.options[listen-client-urls]"},
      {"dashed-option", R"({"options": {"--max-wals": "5"}})", "spec.options[--max-wals]"},
      {"trailing-dash", R"({"options": {"max-wals-": "5"}})", "spec.options[max-wals-]"},
      {"both-budgets",
       R"({"podDisruptionBudgetTemplate": {"spec": {"minAvailable": 2, "maxUnavailable": 1}}})",
       "spec.podDisruptionBudgetTemplate.spec"},
      {"budget-above-replicas",
       R"({"replicas": 3, "podDisruptionBudgetTemplate": {"spec": {"minAvailable": 5}}})",
       "spec.podDisruptionBudgetTemplate.spec.minAvailable"},
      {"budget-bad-percent",
       R"({"podDisruptionBudgetTemplate": {"spec": {"maxUnavailable": "120%"}}})",
       "spec.podDisruptionBudgetTemplate.spec.maxUnavailable"},
      {"peer-tls-half", R"({"security": {"tls": {"peerSecret": "peer-tls"}}})",
       "spec.security.tls.peerTrustedCASecret"},
      {"client-tls-half", R"({"security": {"tls": {"clientTrustedCASecret": "client-ca"}}})",
       "spec.security.tls.clientSecret"},
      {"auth-without-tls", R"({"security": {"enableAuth": true}})", "spec.security.enableAuth"},
      {"bad-secret-name",
       R"({"security": {"tls": {"serverSecret": "Server_TLS", "serverTrustedCASecret": "ca"}}})",
       "spec.security.tls.serverSecret"},
      {"bad-size",
       R"({"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "lots"}}}}}})",
       kSizePath},
      {"negative-replicas", R"({"replicas": -1})", "spec.replicas"},
      // Issue 14: this used to pass and made the operator allocate per
      // desired member until it ran out of memory.
      {"fifty-million-replicas", R"({"replicas": 50000000})", "spec.replicas"},
      {"same-service-names",
       R"({"serviceTemplate": {"metadata": {"name": "etcd"}}, "headlessServiceTemplate": {"metadata": {"name": "etcd"}}})",
       "spec.headlessServiceTemplate.metadata.name"},
  };
  for (const InvalidManifest& c : cases) {
    auto created = client().Create(kEtcdClusters, ns(), Cluster(c.name, c.spec));
    EXPECT_FALSE(created.ok()) << c.name << " was accepted";
    EXPECT_TRUE(kube::IsInvalid(created.status()) || kube::IsForbidden(created.status()))
        << c.name << ": " << created.status();
    EXPECT_TRUE(absl::StrContains(created.status().message(), c.field))
        << c.name << ": the error does not name " << c.field << ": " << created.status();
  }
  // The webhook's own messages say how to fix the problem.
  auto auth = client().Create(kEtcdClusters, ns(),
                              Cluster("auth", R"({"security": {"enableAuth": true}})"));
  EXPECT_TRUE(absl::StrContains(auth.status().message(),
                                "spec.security.enableAuth: requires client and server TLS; set "
                                "security.tls.managed: true (Quorum issues the certificates), or "
                                "security.tls.clientSecret/clientTrustedCASecret and "
                                "serverSecret (missing: clientSecret, serverSecret)"))
      << auth.status();
  EXPECT_TRUE(absl::StrContains(auth.status().message(), "denied the request")) << auth.status();
}

TEST_F(EtcdClusterWebhookTest, UpdatesAreValidatedToo) {
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("update")).ok());
  absl::Status s = MergePatch("update", R"({"spec": {"options": {"initial-cluster": "x=y"}}})");
  EXPECT_TRUE(absl::StrContains(s.message(), "spec.options[initial-cluster]")) << s;
  s = MergePatch("update", R"({"spec": {"security": {"tls": {"clientSecret": "client"}}}})");
  EXPECT_TRUE(absl::StrContains(s.message(), "spec.security.tls.clientTrustedCASecret")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "denied the request")) << "the webhook's: " << s;
  // Turning peer TLS on is refused by the CRD's own rule, before the webhook.
  s = MergePatch("update", R"({"spec": {"security": {"tls": {"peerSecret": "peer"}}}})");
  EXPECT_TRUE(absl::StrContains(s.message(), "spec.security.tls.peerSecret")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "cannot be turned on or off")) << s;
  // Adding a label leaves the spec alone and always passes.
  EXPECT_TRUE(MergePatch("update", R"({"metadata": {"labels": {"team": "db"}}})").ok());
}

TEST_F(EtcdClusterWebhookTest, ImmutableChangesAreRefusedByTheApiServerWithoutTheWebhooks) {
  DeleteConfigurations();
  // Wait until the API server stopped calling them: the reserved option
  // is then accepted (only the webhook refuses it).
  int attempt = 0;
  ASSERT_TRUE(Eventually(
      [&] {
        const std::string name = "unhooked-" + std::to_string(attempt++);
        auto created = client().Create(kEtcdClusters, ns(),
                                       Cluster(name, R"({"options": {"data-dir": "/x"}})"));
        if (created.ok()) (void)client().Delete(kEtcdClusters, ns(), name);
        return created.ok();
      },
      absl::Seconds(30)))
      << "the webhooks are still called";

  ASSERT_TRUE(
      client()
          .Create(kEtcdClusters, ns(), Cluster("ephemeral", R"({"storage": {"emptyDir": {}}})"))
          .ok());
  ASSERT_TRUE(client().Create(kEtcdClusters, ns(), Example("persistent")).ok());
  ASSERT_TRUE(client()
                  .Create(kEtcdClusters, ns(),
                          Cluster("secured", R"({"security": {"enableAuth": true, "tls": {
                              "serverSecret": "s", "serverTrustedCASecret": "ca",
                              "clientSecret": "c", "clientTrustedCASecret": "ca"}}})"))
                  .ok());

  struct Change {
    const char* what;
    const char* name;
    const char* patch;
    const char* field;
    const char* message_part;
  } refused[] = {
      {"emptyDir to PVC", "ephemeral",
       R"({"spec": {"storage": {"emptyDir": null, "volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}}}})",
       "spec.storage", "cannot switch"},
      {"PVC to emptyDir", "persistent",
       R"({"spec": {"storage": {"volumeClaimTemplate": null, "emptyDir": {}}}})", "spec.storage",
       "cannot switch"},
      {"shrinking the PVC", "persistent",
       R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "5Gi"}}}}}}})",
       kSizePath, "cannot shrink"},
      {"shrinking by a byte", "persistent",
       R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": 10737418239}}}}}}})",
       kSizePath, "cannot shrink"},
      {"removing the size", "persistent",
       R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": null}}}}})",
       kSizePath, "cannot shrink"},
      {"adding peer TLS", "persistent",
       R"({"spec": {"security": {"tls": {"peerSecret": "p", "peerTrustedCASecret": "ca"}}}})",
       "spec.security.tls.peerSecret", "cannot be turned on or off in a running cluster"},
      {"adding server TLS", "persistent",
       R"({"spec": {"security": {"tls": {"serverSecret": "s", "serverTrustedCASecret": "ca"}}}})",
       "spec.security.tls.serverSecret", "between http:// and https://"},
      {"turning authentication off", "secured", R"({"spec": {"security": {"enableAuth": false}}})",
       "spec.security.enableAuth", "cannot be turned off"},
  };
  for (const Change& c : refused) {
    absl::Status s = MergePatch(c.name, c.patch);
    EXPECT_TRUE(kube::IsInvalid(s)) << c.what << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), c.field)) << c.what << ": " << s;
    EXPECT_TRUE(absl::StrContains(s.message(), c.message_part)) << c.what << ": " << s;
    EXPECT_FALSE(absl::StrContains(s.message(), "denied the request")) << "webhook still on: " << s;
  }

  // Growing, and the same size written differently, are fine.
  EXPECT_TRUE(
      MergePatch(
          "persistent",
          R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "20Gi"}}}}}}})")
          .ok());
  EXPECT_TRUE(
      MergePatch(
          "persistent",
          R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "20480Mi"}}}}}}})")
          .ok());
  EXPECT_TRUE(
      MergePatch("ephemeral",
                 R"({"spec": {"replicas": 0, "storage": {"emptyDir": {"medium": "Memory"}}}})")
          .ok());
  // As in aenix, emptyDir decides: a template added next to it is ignored,
  // not a switch to PVCs.
  EXPECT_TRUE(
      MergePatch(
          "ephemeral",
          R"({"spec": {"storage": {"volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}}}})")
          .ok());
}

}  // namespace
}  // namespace quorum::webhooks
