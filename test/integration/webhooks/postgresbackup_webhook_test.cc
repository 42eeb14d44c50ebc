// The PostgresBackup validating webhook called by the real kube-apiserver:
// what the CRD's schema lets through but the webhook refuses (a clusterRef
// that is no object name) is denied naming the field; the schema's own rules
// (repo and type enums, an immutable spec) answer too; a good backup is
// admitted.
#include "src/webhooks/postgresbackup_webhook.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "src/kube/client.h"
#include "src/runtime/certs.h"
#include "src/runtime/http_server.h"
#include "test/integration/testenv.h"
#include "test/testmain/paths.h"

namespace quorum::webhooks {
namespace {

using kube::Json;
using testenv::Eventually;

const kube::GroupVersionResource kBackups{"postgres.quorum.dev", "v1alpha1", "postgresbackups"};
const kube::GroupVersionResource kValidating{"admissionregistration.k8s.io", "v1",
                                             "validatingwebhookconfigurations"};

Json Backup(const std::string& name, const char* spec_patch = "{}") {
  Json obj = {{"apiVersion", "postgres.quorum.dev/v1alpha1"},
              {"kind", "PostgresBackup"},
              {"metadata", {{"name", name}}},
              {"spec", {{"clusterRef", {{"name", "hippo"}}}, {"repoName", "repo1"}}}};
  obj["spec"].merge_patch(Json::parse(spec_patch));
  return obj;
}

class PostgresBackupWebhookTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    absl::Status installed =
        testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) +
                                          "/deploy/crds/postgres.quorum.dev_postgresbackups.yaml");
    ASSERT_TRUE(installed.ok()) << installed;
    std::string tmpl = ::testing::TempDir() + "pgbackup-webhook-it-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ASSERT_NO_FATAL_FAILURE(StartWebhook());
  }
  void TearDown() override {
    // failurePolicy Fail: the configuration must not outlive its server.
    if (configured_) (void)client().Delete(kValidating, "", ns() + "-validate");
    if (server_ != nullptr) server_->Stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    IntegrationTest::TearDown();
  }

  void StartWebhook() {
    auto ca = runtime::GenerateCA("pgbackup-webhook-it-ca", absl::Hours(1), absl::Now());
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
    ASSERT_TRUE(RegisterPostgresBackupWebhooks(*server_).ok());
    ASSERT_TRUE(server_->Start().ok());
    const std::string url = "https://127.0.0.1:" + std::to_string(server_->port()) +
                            std::string(kValidatePostgresBackupPath);
    const Json config = {
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "ValidatingWebhookConfiguration"},
        {"metadata", {{"name", ns() + "-validate"}}},
        {"webhooks",
         Json::array(
             {{{"name", "vpostgresbackup.quorum.dev"},
               {"clientConfig", {{"url", url}, {"caBundle", absl::Base64Escape(ca->cert_pem)}}},
               {"rules", Json::array({{{"apiGroups", {"postgres.quorum.dev"}},
                                       {"apiVersions", {"v1alpha1"}},
                                       {"operations", {"CREATE", "UPDATE"}},
                                       {"resources", {"postgresbackups"}},
                                       {"scope", "Namespaced"}}})},
               {"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", ns()}}}}},
               {"failurePolicy", "Fail"},
               {"sideEffects", "None"},
               {"admissionReviewVersions", {"v1"}},
               {"timeoutSeconds", 5}}})}};
    ASSERT_TRUE(client().Create(kValidating, "", config).ok());
    configured_ = true;
    // Live once a clusterRef that is no object name (which the schema cannot see) is denied.
    int attempt = 0;
    ASSERT_TRUE(Eventually(
        [&] {
          const std::string name = "probe-" + std::to_string(attempt++);
          auto r = client().Create(kBackups, ns(),
                                   Backup(name, R"({"clusterRef": {"name": "Not_A_Name"}})"));
          if (r.ok()) (void)client().Delete(kBackups, ns(), name);
          return absl::StrContains(r.status().message(), "denied the request");
        },
        absl::Seconds(30)));
  }

  std::string dir_;
  bool configured_ = false;
  std::unique_ptr<runtime::WebhookServer> server_;
};

TEST_F(PostgresBackupWebhookTest, RefusesNamingTheFieldAndAdmitsAGoodBackup) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"clusterRef": {"name": "Not_A_Name"}})", "spec.clusterRef.name"},
      {R"({"repoName": "repo9"})", "spec.repoName"},
      {R"({"type": "differential"})", "spec.type"},
  };
  int i = 0;
  for (const auto& [patch, want] : cases) {
    absl::StatusOr<Json> r =
        client().Create(kBackups, ns(), Backup("bad-" + std::to_string(i++), patch));
    ASSERT_FALSE(r.ok()) << patch;
    EXPECT_TRUE(absl::StrContains(r.status().message(), want)) << r.status();
  }
  absl::StatusOr<Json> good =
      client().Create(kBackups, ns(), Backup("good", R"({"type": "incr"})"));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ((*good)["spec"]["type"], "incr");
  // The schema defaults the type.
  absl::StatusOr<Json> plain = client().Create(kBackups, ns(), Backup("plain"));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)["spec"]["type"], "full");
  // One object is one backup: its spec never changes.
  absl::StatusOr<Json> changed = client().Patch(kBackups, ns(), "good", kube::PatchType::kMerge,
                                                {{"spec", {{"type", "full"}}}});
  ASSERT_FALSE(changed.ok());
  EXPECT_TRUE(absl::StrContains(changed.status().message(), "immutable")) << changed.status();
}

}  // namespace
}  // namespace quorum::webhooks
