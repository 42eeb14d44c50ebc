// The EtcdBackupSchedule validating webhook called by the real kube-apiserver:
// a table of schedules the CRD's schema lets through but the webhook refuses
// (a cron that does not parse or never fires, a duration Go cannot read),
// each denied with a message naming the field; a good one is accepted and may
// change (unlike an EtcdBackup).
#include "src/webhooks/etcdbackupschedule_webhook.h"

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

const kube::GroupVersionResource kSchedules{"etcd.aenix.io", "v1alpha1", "etcdbackupschedules"};
const kube::GroupVersionResource kValidating{"admissionregistration.k8s.io", "v1",
                                             "validatingwebhookconfigurations"};

Json Schedule(const std::string& name, const char* spec_patch = "{}") {
  Json obj = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
              {"kind", "EtcdBackupSchedule"},
              {"metadata", {{"name", name}}},
              {"spec",
               {{"clusterRef", {{"name", "main"}}},
                {"schedule", "0 3 * * *"},
                {"destination", {{"pvc", {{"claimName", "backups"}, {"subPath", "etcd"}}}}}}}};
  obj["spec"].merge_patch(Json::parse(spec_patch));
  return obj;
}

class EtcdBackupScheduleWebhookTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    absl::Status installed =
        testenv::InstallCrd(client(), std::string(QUORUM_SOURCE_DIR) +
                                          "/deploy/crds/etcd.aenix.io_etcdbackupschedules.yaml");
    ASSERT_TRUE(installed.ok()) << installed;
    std::string tmpl = ::testing::TempDir() + "sched-webhook-it-XXXXXX";
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
    auto ca = runtime::GenerateCA("sched-webhook-it-ca", absl::Hours(1), absl::Now());
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
    ASSERT_TRUE(RegisterEtcdBackupScheduleWebhooks(*server_).ok());
    ASSERT_TRUE(server_->Start().ok());
    const std::string url = "https://127.0.0.1:" + std::to_string(server_->port()) +
                            std::string(kValidateEtcdBackupSchedulePath);
    const Json config = {
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", "ValidatingWebhookConfiguration"},
        {"metadata", {{"name", ns() + "-validate"}}},
        {"webhooks",
         Json::array(
             {{{"name", "vetcdbackupschedule.quorum.dev"},
               {"clientConfig", {{"url", url}, {"caBundle", absl::Base64Escape(ca->cert_pem)}}},
               {"rules", Json::array({{{"apiGroups", {"etcd.aenix.io"}},
                                       {"apiVersions", {"v1alpha1"}},
                                       {"operations", {"CREATE", "UPDATE"}},
                                       {"resources", {"etcdbackupschedules"}},
                                       {"scope", "Namespaced"}}})},
               {"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", ns()}}}}},
               {"failurePolicy", "Fail"},
               {"sideEffects", "None"},
               {"admissionReviewVersions", {"v1"}},
               {"timeoutSeconds", 5}}})}};
    ASSERT_TRUE(client().Create(kValidating, "", config).ok());
    configured_ = true;
    // Live once a never-firing schedule (which the schema cannot see) is denied.
    int attempt = 0;
    ASSERT_TRUE(Eventually(
        [&] {
          const std::string name = "probe-" + std::to_string(attempt++);
          auto r =
              client().Create(kSchedules, ns(), Schedule(name, R"({"schedule": "0 0 30 2 *"})"));
          if (r.ok()) (void)client().Delete(kSchedules, ns(), name);
          return absl::StrContains(r.status().message(), "denied the request");
        },
        absl::Seconds(30)));
  }

  std::string dir_;
  bool configured_ = false;
  std::unique_ptr<runtime::WebhookServer> server_;
};

TEST_F(EtcdBackupScheduleWebhookTest, TheApiServerRelaysDenialsNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"schedule": "0 25 * * *"})", "spec.schedule: hour: 25 is out of range 0-23"},
      {R"({"schedule": "*/0 * * * *"})", "spec.schedule: minute: step"},
      {R"({"schedule": "0 0 31 4 *"})", "spec.schedule: \"0 0 31 4 *\" never fires"},
      {R"({"keepWithin": "0h"})", "spec.keepWithin: want a positive duration"},
      {R"({"destination": {"pvc": {"subPath": "../up"}}})", "spec.destination.pvc.subPath"},
  };
  int i = 0;
  for (const auto& [patch, want] : cases) {
    absl::StatusOr<Json> r =
        client().Create(kSchedules, ns(), Schedule("bad-" + std::to_string(i++), patch));
    ASSERT_FALSE(r.ok()) << patch;
    EXPECT_TRUE(absl::StrContains(r.status().message(), want)) << r.status();
  }
  // A good schedule is admitted and may change; a bad change is refused.
  ASSERT_TRUE(client().Create(kSchedules, ns(), Schedule("good", R"({"keepLast": 3})")).ok());
  EXPECT_TRUE(client()
                  .Patch(kSchedules, ns(), "good", kube::PatchType::kMerge,
                         {{"spec", {{"schedule", "*/30 1-5 * * 1,3,5"}}}})
                  .ok());
  // CronJob's macros, as aenix's schedules take them (issue 35), pass the
  // CRD's pattern and the webhook; an unknown one is refused.
  EXPECT_TRUE(client()
                  .Patch(kSchedules, ns(), "good", kube::PatchType::kMerge,
                         {{"spec", {{"schedule", "@daily"}}}})
                  .ok());
  absl::StatusOr<Json> every = client().Patch(kSchedules, ns(), "good", kube::PatchType::kMerge,
                                              {{"spec", {{"schedule", "@every 1h"}}}});
  EXPECT_FALSE(every.ok());
  absl::StatusOr<Json> bad = client().Patch(kSchedules, ns(), "good", kube::PatchType::kMerge,
                                            {{"spec", {{"schedule", "0 0 * 13 *"}}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "spec.schedule: month: 13"))
      << bad.status();
}

}  // namespace
}  // namespace quorum::webhooks
