// The admission webhook server called by the real kube-apiserver: a
// validating webhook whose denial reaches the client, self-managed
// certificates that need no manual step, and a mutating webhook's JSON patch.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "src/base/cancellation.h"
#include "src/base/clock.h"
#include "src/base/strings.h"
#include "src/kube/client.h"
#include "src/kube/errors.h"
#include "src/runtime/admission.h"
#include "src/runtime/certs.h"
#include "src/runtime/http_server.h"
#include "src/runtime/webhook_cert_renewal.h"
#include "src/runtime/webhook_certs.h"
#include "test/integration/testenv.h"

namespace quorum::runtime {
namespace {

using kube::Json;
using testenv::Eventually;

const kube::GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
const kube::GroupVersionResource kSecrets{"", "v1", "secrets"};
const kube::GroupVersionResource kValidating{"admissionregistration.k8s.io", "v1",
                                             "validatingwebhookconfigurations"};
const kube::GroupVersionResource kMutating{"admissionregistration.k8s.io", "v1",
                                           "mutatingwebhookconfigurations"};
constexpr char kDenyMessage[] =
    "spec.data.forbidden: ConfigMaps labelled quorum.dev/deny are refused";

Json ConfigMap(const std::string& name, Json labels) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
          {"data", {{"k", "v"}}}};
}

AdmissionResponse DenyLabelled(const AdmissionRequest& req) {
  const Json* meta = req.object.contains("metadata") ? &req.object["metadata"] : nullptr;
  if (meta != nullptr && meta->contains("labels") && (*meta)["labels"].is_object() &&
      (*meta)["labels"].value("quorum.dev/deny", "") == "true") {
    return Denied(kDenyMessage, 403);
  }
  return Allowed();
}

// Adds the label quorum.dev/mutated=true.
AdmissionResponse AddLabel(const AdmissionRequest& req) {
  const bool has_labels = req.object.contains("metadata") &&
                          req.object["metadata"].contains("labels") &&
                          req.object["metadata"]["labels"].is_object();
  if (!has_labels) {
    return Patched(Json::array({{{"op", "add"},
                                 {"path", "/metadata/labels"},
                                 {"value", {{"quorum.dev/mutated", "true"}}}}}));
  }
  return Patched(Json::array(
      {{{"op", "add"}, {"path", "/metadata/labels/quorum.dev~1mutated"}, {"value", "true"}}}));
}

// kind: ValidatingWebhookConfiguration or MutatingWebhookConfiguration for
// ConfigMaps of one namespace; no caBundle when `ca_pem` is empty.
Json WebhookConfiguration(const std::string& kind, const std::string& name, const std::string& url,
                          const std::string& ca_pem, const std::string& ns) {
  Json client_config = {{"url", url}};
  if (!ca_pem.empty()) client_config["caBundle"] = absl::Base64Escape(ca_pem);
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", kind},
          {"metadata", {{"name", name}}},
          {"webhooks", Json::array({{{"name", "configmaps.test.quorum.dev"},
                                     {"clientConfig", client_config},
                                     {"rules", Json::array({{{"apiGroups", {""}},
                                                             {"apiVersions", {"v1"}},
                                                             {"operations", {"CREATE", "UPDATE"}},
                                                             {"resources", {"configmaps"}},
                                                             {"scope", "Namespaced"}}})},
                                     {"namespaceSelector",
                                      {{"matchLabels", {{"kubernetes.io/metadata.name", ns}}}}},
                                     {"failurePolicy", "Fail"},
                                     {"sideEffects", "None"},
                                     {"admissionReviewVersions", {"v1"}},
                                     {"timeoutSeconds", 5}}})}};
}

std::string Rv(const Json& o) { return o["metadata"]["resourceVersion"].get<std::string>(); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A port that was free a moment ago, for a server that must be named in a
// webhook configuration before it can start.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

class WebhookTest : public testenv::IntegrationTest {
 protected:
  void SetUp() override {
    IntegrationTest::SetUp();
    if (HasFatalFailure()) return;
    std::string tmpl = ::testing::TempDir() + "webhook-it-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }

  void TearDown() override {
    // A configuration with failurePolicy Fail outlives its server otherwise.
    for (const auto& [gvr, name] : created_) (void)client().Delete(gvr, "", name);
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
    IntegrationTest::TearDown();
  }

  void CreateConfiguration(const kube::GroupVersionResource& gvr, const Json& config) {
    auto created = client().Create(gvr, "", config);
    ASSERT_TRUE(created.ok()) << created.status();
    created_.emplace_back(gvr, config["metadata"]["name"].get<std::string>());
  }

  std::string Url(int port, const std::string& path) {
    return "https://127.0.0.1:" + std::to_string(port) + path;
  }

  // Polls until the API server (which picks up new configurations within a
  // moment) refuses a labelled ConfigMap with the handler's message; then an
  // unlabelled ConfigMap is still accepted.
  void ExpectLabelledConfigMapsDenied() {
    absl::Status last;
    int attempt = 0;
    const bool denied = Eventually(
        [&] {
          auto r = client().Create(
              kConfigMaps, ns(),
              ConfigMap("denied-" + std::to_string(attempt++), {{"quorum.dev/deny", "true"}}));
          last = r.status();
          return absl::StrContains(last.message(), kDenyMessage);
        },
        absl::Seconds(30));
    ASSERT_TRUE(denied) << "last result: " << last;
    EXPECT_TRUE(kube::IsForbidden(last) || kube::IsInvalid(last)) << last;
    EXPECT_TRUE(absl::StrContains(last.message(), "denied the request")) << last;

    auto allowed = client().Create(kConfigMaps, ns(), ConfigMap("allowed", Json::object()));
    EXPECT_TRUE(allowed.ok()) << allowed.status();
  }

  std::string dir_;
  std::vector<std::pair<kube::GroupVersionResource, std::string>> created_;
};

TEST_F(WebhookTest, ApiServerCallsTheValidatingWebhookAndItsDenialReachesTheClient) {
  auto ca = GenerateCA("webhook-it-ca", absl::Hours(1), absl::Now());
  ASSERT_TRUE(ca.ok()) << ca.status();
  auto serving = GenerateServingCert(*ca, "", {}, {"127.0.0.1"}, absl::Hours(1), absl::Now());
  ASSERT_TRUE(serving.ok()) << serving.status();
  std::ofstream(dir_ + "/tls.crt") << serving->cert_pem;
  std::ofstream(dir_ + "/tls.key") << serving->key_pem;

  std::atomic<int> reviews{0};
  WebhookServer server({.bind_address = "127.0.0.1",
                        .port = 0,
                        .cert_file = dir_ + "/tls.crt",
                        .key_file = dir_ + "/tls.key"});
  ASSERT_TRUE(server
                  .Register("/validate",
                            [&](const AdmissionRequest& req) {
                              if (req.namespace_name == ns() && req.kind.kind == "ConfigMap") {
                                ++reviews;
                              }
                              return DenyLabelled(req);
                            })
                  .ok());
  ASSERT_TRUE(server.Start().ok());

  CreateConfiguration(kValidating,
                      WebhookConfiguration("ValidatingWebhookConfiguration", ns() + "-validate",
                                           Url(server.port(), "/validate"), ca->cert_pem, ns()));
  ExpectLabelledConfigMapsDenied();
  EXPECT_GE(reviews.load(), 2);
}

TEST_F(WebhookTest, SelfManagedCertificatesNeedNoManualStepAndSettleWithNoWrites) {
  const int port = FreePort();
  ASSERT_NE(port, 0);
  const std::string config_name = ns() + "-self-managed";
  CreateConfiguration(kValidating,
                      WebhookConfiguration("ValidatingWebhookConfiguration", config_name,
                                           Url(port, "/validate"), /*ca_pem=*/"", ns()));

  const SelfManagedCertOptions options{.secret_namespace = ns(),
                                       .secret_name = "webhook-certs",
                                       .cert_dir = dir_ + "/certs",
                                       .dns_names = {"webhook.test.svc"},
                                       .ip_addresses = {"127.0.0.1"},
                                       .validating_configurations = {config_name}};
  absl::Status ensured = EnsureWebhookCertificates(client(), options, absl::Now());
  ASSERT_TRUE(ensured.ok()) << ensured;

  WebhookServer server({.bind_address = "127.0.0.1",
                        .port = port,
                        .cert_file = options.cert_dir + "/tls.crt",
                        .key_file = options.cert_dir + "/tls.key"});
  ASSERT_TRUE(server.Register("/validate", DenyLabelled).ok());
  ASSERT_TRUE(server.Start().ok());
  ExpectLabelledConfigMapsDenied();

  auto secret = client().Get(kSecrets, ns(), "webhook-certs");
  ASSERT_TRUE(secret.ok()) << secret.status();
  EXPECT_EQ((*secret)["type"], "kubernetes.io/tls");
  std::string ca_pem;
  ASSERT_TRUE(absl::Base64Unescape((*secret)["data"]["ca.crt"].get<std::string>(), &ca_pem));
  EXPECT_EQ(ReadFile(options.cert_dir + "/ca.crt"), ca_pem);
  auto config = client().Get(kValidating, "", config_name);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ((*config)["webhooks"][0]["clientConfig"]["caBundle"], absl::Base64Escape(ca_pem));
  const std::string cert_before = ReadFile(options.cert_dir + "/tls.crt");

  ensured = EnsureWebhookCertificates(client(), options, absl::Now());
  ASSERT_TRUE(ensured.ok()) << ensured;
  auto secret_after = client().Get(kSecrets, ns(), "webhook-certs");
  auto config_after = client().Get(kValidating, "", config_name);
  ASSERT_TRUE(secret_after.ok() && config_after.ok());
  EXPECT_EQ(Rv(*secret_after), Rv(*secret)) << "a second call must not rewrite the Secret";
  EXPECT_EQ(Rv(*config_after), Rv(*config)) << "a second call must not rewrite the caBundle";
  EXPECT_EQ(ReadFile(options.cert_dir + "/tls.crt"), cert_before);
}

TEST_F(WebhookTest, CertificatesLackingARequestedNameAreReissued) {
  SelfManagedCertOptions options{.secret_namespace = ns(),
                                 .secret_name = "webhook-certs",
                                 .cert_dir = dir_,
                                 .dns_names = {"old.test.svc"}};
  ASSERT_TRUE(EnsureWebhookCertificates(client(), options, absl::Now()).ok());
  auto first = client().Get(kSecrets, ns(), "webhook-certs");
  ASSERT_TRUE(first.ok());

  options.dns_names = {"new.test.svc"};
  absl::Status s = EnsureWebhookCertificates(client(), options, absl::Now());
  ASSERT_TRUE(s.ok()) << s;
  auto second = client().Get(kSecrets, ns(), "webhook-certs");
  ASSERT_TRUE(second.ok());
  EXPECT_NE(Rv(*second), Rv(*first));
  auto info = InspectCertificate(ReadFile(dir_ + "/tls.crt"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->dns_names, std::vector<std::string>{"new.test.svc"});
}

// The renewal is judged at the time the caller passes: the test moves that
// time into the renewal window instead of waiting for it.
TEST_F(WebhookTest, ExpiringCertificatesAreRenewedAndTheCaBundleFollows) {
  const std::string config_name = ns() + "-renew";
  CreateConfiguration(kValidating,
                      WebhookConfiguration("ValidatingWebhookConfiguration", config_name,
                                           Url(1, "/validate"), /*ca_pem=*/"", ns()));
  SelfManagedCertOptions options{.secret_namespace = ns(),
                                 .secret_name = "webhook-certs",
                                 .cert_dir = dir_,
                                 .ip_addresses = {"127.0.0.1"},
                                 .validating_configurations = {config_name},
                                 .validity = absl::Hours(48),
                                 .renew_before = absl::Hours(3)};
  const absl::Time issued = absl::Now();
  ASSERT_TRUE(EnsureWebhookCertificates(client(), options, issued).ok());
  const std::string first_ca = ReadFile(dir_ + "/ca.crt");
  auto first = client().Get(kSecrets, ns(), "webhook-certs");
  ASSERT_TRUE(first.ok());

  // Four hours before the expiry: still good, nothing is written.
  ASSERT_TRUE(EnsureWebhookCertificates(client(), options, issued + absl::Hours(44)).ok());
  auto kept = client().Get(kSecrets, ns(), "webhook-certs");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(Rv(*kept), Rv(*first));
  EXPECT_EQ(ReadFile(dir_ + "/ca.crt"), first_ca);

  // Two hours before: within the renewal window.
  const absl::Time later = issued + absl::Hours(46);
  absl::Status s = EnsureWebhookCertificates(client(), options, later);
  ASSERT_TRUE(s.ok()) << s;
  const std::string second_ca = ReadFile(dir_ + "/ca.crt");
  EXPECT_NE(second_ca, first_ca);
  auto expiry = CertificateNotAfter(ReadFile(dir_ + "/tls.crt"));
  ASSERT_TRUE(expiry.ok()) << expiry.status();
  EXPECT_GT(*expiry, later + absl::Hours(47));
  auto config = client().Get(kValidating, "", config_name);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ((*config)["webhooks"][0]["clientConfig"]["caBundle"], absl::Base64Escape(second_ca));
}

// The operator renews its serving certificate while it runs
// (webhook_cert_renewal.h): with a clock 46 hours ahead of the issue, a
// 48-hour certificate renewed 3 hours before its end is due, the renewal
// writes a new one at once, then waits for that one's renewal time, and
// stops promptly when cancelled.
TEST_F(WebhookTest, ARunningOperatorRenewsItsCertificateWhenItIsDue) {
  class AheadClock : public Clock {
   public:
    explicit AheadClock(absl::Duration ahead) : ahead_(ahead) {}
    absl::Time Now() const override { return absl::Now() + ahead_; }
    void Sleep(absl::Duration d) override { absl::SleepFor(d); }

   private:
    const absl::Duration ahead_;
  };
  SelfManagedCertOptions options{.secret_namespace = ns(),
                                 .secret_name = "webhook-certs",
                                 .cert_dir = dir_,
                                 .ip_addresses = {"127.0.0.1"},
                                 .validity = absl::Hours(48),
                                 .renew_before = absl::Hours(3)};
  const absl::Time issued = absl::Now();
  ASSERT_TRUE(EnsureWebhookCertificates(client(), options, issued).ok());
  auto first = CertificateNotAfter(ReadFile(dir_ + "/tls.crt"));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_LT(*first, issued + absl::Hours(49));

  AheadClock clock(absl::Hours(46));
  Cancellation cancel;
  std::thread renewer([&] { RenewWebhookCertificates(client(), options, clock, cancel); });
  absl::Time renewed_until;
  const bool renewed = testenv::Eventually(
      [&] {
        auto now = CertificateNotAfter(ReadFile(dir_ + "/tls.crt"));
        if (now.ok()) renewed_until = *now;
        return now.ok() && *now > issued + absl::Hours(90);
      },
      absl::Seconds(30));
  const absl::Time stop = absl::Now();
  cancel.Cancel();
  renewer.join();
  EXPECT_LT(absl::Now() - stop, absl::Seconds(5)) << "the renewal did not stop promptly";
  ASSERT_TRUE(renewed) << "the certificate was not renewed: it ends "
                       << absl::FormatTime(renewed_until);
}

TEST_F(WebhookTest, ReplicasRacingToCreateTheSecretAgreeOnOneCertificate) {
  constexpr int kReplicas = 4;
  std::vector<std::unique_ptr<kube::Client>> clients;
  for (int i = 0; i < kReplicas; ++i) {
    auto c = kube::Client::Create(control_plane().config);
    ASSERT_TRUE(c.ok()) << c.status();
    clients.push_back(*std::move(c));
  }
  std::vector<absl::Status> results(kReplicas);
  std::vector<std::thread> threads;
  for (int i = 0; i < kReplicas; ++i) {
    threads.emplace_back([&, i] {
      results[i] = EnsureWebhookCertificates(*clients[i],
                                             {.secret_namespace = ns(),
                                              .secret_name = "webhook-certs",
                                              .cert_dir = dir_ + "/replica-" + std::to_string(i),
                                              .ip_addresses = {"127.0.0.1"}},
                                             absl::Now());
    });
  }
  for (std::thread& t : threads) t.join();
  auto secret = client().Get(kSecrets, ns(), "webhook-certs");
  ASSERT_TRUE(secret.ok()) << secret.status();
  std::string ca_pem, cert_pem;
  ASSERT_TRUE(absl::Base64Unescape((*secret)["data"]["ca.crt"].get<std::string>(), &ca_pem));
  ASSERT_TRUE(absl::Base64Unescape((*secret)["data"]["tls.crt"].get<std::string>(), &cert_pem));
  for (int i = 0; i < kReplicas; ++i) {
    EXPECT_TRUE(results[i].ok()) << "replica " << i << ": " << results[i];
    const std::string dir = dir_ + "/replica-" + std::to_string(i);
    EXPECT_EQ(ReadFile(dir + "/ca.crt"), ca_pem) << "replica " << i;
    EXPECT_EQ(ReadFile(dir + "/tls.crt"), cert_pem) << "replica " << i;
  }
}

TEST_F(WebhookTest, AMissingConfigurationIsNotFoundNamingIt) {
  const std::string missing = ns() + "-absent";
  absl::Status s = EnsureWebhookCertificates(client(),
                                             {.secret_namespace = ns(),
                                              .secret_name = "webhook-certs",
                                              .cert_dir = dir_,
                                              .ip_addresses = {"127.0.0.1"},
                                              .mutating_configurations = {missing}},
                                             absl::Now());
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), missing)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "MutatingWebhookConfiguration")) << s;
}

TEST_F(WebhookTest, MutatingWebhookPatchShowsUpOnTheCreatedObject) {
  auto ca = GenerateCA("webhook-it-ca", absl::Hours(1), absl::Now());
  ASSERT_TRUE(ca.ok()) << ca.status();
  auto serving = GenerateServingCert(*ca, "", {}, {"127.0.0.1"}, absl::Hours(1), absl::Now());
  ASSERT_TRUE(serving.ok()) << serving.status();
  std::ofstream(dir_ + "/tls.crt") << serving->cert_pem;
  std::ofstream(dir_ + "/tls.key") << serving->key_pem;
  WebhookServer server({.bind_address = "127.0.0.1",
                        .port = 0,
                        .cert_file = dir_ + "/tls.crt",
                        .key_file = dir_ + "/tls.key"});
  ASSERT_TRUE(server.Register("/mutate", AddLabel).ok());
  ASSERT_TRUE(server.Start().ok());
  CreateConfiguration(kMutating,
                      WebhookConfiguration("MutatingWebhookConfiguration", ns() + "-mutate",
                                           Url(server.port(), "/mutate"), ca->cert_pem, ns()));

  int attempt = 0;
  Json last;
  const bool mutated = Eventually(
      [&] {
        auto created = client().Create(
            kConfigMaps, ns(), ConfigMap("plain-" + std::to_string(attempt++), Json::object()));
        if (!created.ok()) return false;
        last = *created;
        return last["metadata"].contains("labels") &&
               last["metadata"]["labels"].value("quorum.dev/mutated", "") == "true";
      },
      absl::Seconds(30));
  ASSERT_TRUE(mutated) << last.dump();

  // Existing labels are kept next to the added one.
  auto labelled = client().Create(kConfigMaps, ns(), ConfigMap("labelled", {{"app", "x"}}));
  ASSERT_TRUE(labelled.ok()) << labelled.status();
  EXPECT_EQ((*labelled)["metadata"]["labels"],
            (Json{{"app", "x"}, {"quorum.dev/mutated", "true"}}));
}

}  // namespace
}  // namespace quorum::runtime
