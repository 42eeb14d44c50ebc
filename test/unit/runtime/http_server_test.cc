#include "src/runtime/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "src/base/clock.h"
#include "src/runtime/admission.h"
#include "src/runtime/certs.h"
#include "src/runtime/metrics.h"

namespace quorum::runtime {
namespace {

using kube::Json;

// ------------------------------------------------------------ ProbeServer

class ProbeServerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start().ok()); }
  httplib::Result Get(const std::string& path) {
    httplib::Client client("127.0.0.1", server_.port());
    return client.Get(path.c_str());
  }
  Registry registry_;
  ProbeServer server_{{.bind_address = "127.0.0.1", .port = 0, .metrics = &registry_}};
};

TEST_F(ProbeServerTest, MetricsShowACounterMoving) {
  CounterFamily& events = registry_.Counter("quorum_test_events_total", "Events.", {"kind"});
  events.Inc({"a"});
  auto first = Get("/metrics");
  ASSERT_TRUE(first) << httplib::to_string(first.error());
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->get_header_value("Content-Type"), "text/plain; version=0.0.4");
  EXPECT_NE(first->body.find("quorum_test_events_total{kind=\"a\"} 1\n"), std::string::npos)
      << first->body;
  events.Inc({"a"}, 2);
  auto second = Get("/metrics");
  ASSERT_TRUE(second);
  EXPECT_NE(second->body.find("quorum_test_events_total{kind=\"a\"} 3\n"), std::string::npos)
      << second->body;
}

TEST_F(ProbeServerTest, ReadyzFailsUntilEveryReadyCheckPasses) {
  std::atomic<bool> synced{false};
  server_.AddReadyCheck("informers", [&] {
    return synced ? absl::OkStatus() : absl::UnavailableError("caches not synced");
  });
  server_.AddReadyCheck("leader", [] { return absl::OkStatus(); });

  auto failing = Get("/readyz");
  ASSERT_TRUE(failing);
  EXPECT_EQ(failing->status, 500);
  EXPECT_NE(failing->body.find("[-]informers failed: caches not synced"), std::string::npos)
      << failing->body;
  EXPECT_EQ(failing->body.find("leader"), std::string::npos) << "only failing checks listed";

  synced = true;
  auto ready = Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(ready->body, "ok");

  auto verbose = Get("/readyz?verbose");
  ASSERT_TRUE(verbose);
  EXPECT_EQ(verbose->status, 200);
  EXPECT_NE(verbose->body.find("[+]informers ok\n"), std::string::npos) << verbose->body;
  EXPECT_NE(verbose->body.find("[+]leader ok\n"), std::string::npos) << verbose->body;

  // Health checks are separate from ready checks.
  auto health = Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok");
}

TEST_F(ProbeServerTest, AThrowingCheckFailsTheProbeButNotTheServer) {
  server_.AddHealthCheck("boom", []() -> absl::Status { throw std::runtime_error("kaput"); });
  auto res = Get("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  EXPECT_NE(res->body.find("[-]boom failed: check threw: kaput"), std::string::npos) << res->body;
  auto metrics = Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
}

TEST_F(ProbeServerTest, StartTwiceTakenPortAndStopAreHandled) {
  EXPECT_EQ(server_.Start().code(), absl::StatusCode::kFailedPrecondition);
  ProbeServer clash({.bind_address = "127.0.0.1", .port = server_.port()});
  EXPECT_EQ(clash.Start().code(), absl::StatusCode::kUnavailable);
  server_.Stop();
  server_.Stop();
  EXPECT_EQ(server_.port(), 0);
  EXPECT_FALSE(Get("/healthz"));
}

// ---------------------------------------------------------- WebhookServer

// A temporary folder with a CA and a serving certificate for 127.0.0.1.
class WebhookServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "webhook-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    auto ca = GenerateCA("webhook-test-ca", absl::Hours(2), absl::Now());
    ASSERT_TRUE(ca.ok()) << ca.status();
    ca_ = *ca;
    WriteFile("ca.crt", ca_.cert_pem);
    Rotate("serving-1");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Replaces a file the way a rotation should: write aside, then rename.
  void WriteFile(const std::string& name, const std::string& content) {
    {
      std::ofstream out(Path(name + ".new"), std::ios::binary | std::ios::trunc);
      out << content;
    }
    std::filesystem::rename(Path(name + ".new"), Path(name));
  }

  CertKeyPair Issue(const std::string& cn) {
    auto pair =
        GenerateServingCert(ca_, cn, {"localhost"}, {"127.0.0.1"}, absl::Hours(1), absl::Now());
    EXPECT_TRUE(pair.ok()) << pair.status();
    return pair.ok() ? *pair : CertKeyPair{};
  }

  void Rotate(const std::string& cn) {
    CertKeyPair pair = Issue(cn);
    WriteFile("tls.key", pair.key_pem);
    WriteFile("tls.crt", pair.cert_pem);
  }

  WebhookServer::Options Options() {
    return {.bind_address = "127.0.0.1",
            .port = 0,
            .cert_file = Path("tls.crt"),
            .key_file = Path("tls.key"),
            .reload_interval = absl::ZeroDuration(),
            .metrics = &registry_};
  }

  httplib::Result Post(int port, const std::string& path, const std::string& body,
                       const std::string& type = "application/json") {
    httplib::SSLClient client("127.0.0.1", port);
    client.set_ca_cert_path(Path("ca.crt").c_str());
    client.enable_server_certificate_verification(true);
    return client.Post(path.c_str(), body, type.c_str());
  }

  // The common name of the certificate a fresh TLS handshake is served,
  // verified against the test CA for 127.0.0.1; "" when the handshake fails.
  std::string ServedCommonName(int port) {
    std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                          &SSL_CTX_free);
    if (SSL_CTX_load_verify_locations(ctx.get(), Path("ca.crt").c_str(), nullptr) != 1) return "";
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    std::unique_ptr<BIO, decltype(&BIO_free_all)> bio(BIO_new_ssl_connect(ctx.get()),
                                                      &BIO_free_all);
    SSL* ssl = nullptr;
    BIO_get_ssl(bio.get(), &ssl);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), "127.0.0.1");
    const std::string target = "127.0.0.1:" + std::to_string(port);
    BIO_set_conn_hostname(bio.get(), target.c_str());
    if (BIO_do_handshake(bio.get()) != 1 || SSL_get_verify_result(ssl) != X509_V_OK) return "";
    std::unique_ptr<X509, decltype(&X509_free)> peer(SSL_get1_peer_certificate(ssl), &X509_free);
    std::unique_ptr<BIO, decltype(&BIO_free)> pem(BIO_new(BIO_s_mem()), &BIO_free);
    PEM_write_bio_X509(pem.get(), peer.get());
    char* data = nullptr;
    const long n = BIO_get_mem_data(pem.get(), &data);
    auto info = InspectCertificate(std::string(data, n));
    return info.ok() ? info->common_name : "";
  }

  static std::string Review(const std::string& uid, Json labels) {
    if (labels.is_null()) labels = Json::object();
    return Json{{"apiVersion", "admission.k8s.io/v1"},
                {"kind", "AdmissionReview"},
                {"request",
                 {{"uid", uid},
                  {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "ConfigMap"}}},
                  {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "configmaps"}}},
                  {"namespace", "ns"},
                  {"operation", "CREATE"},
                  {"object", {{"metadata", {{"name", "cm"}, {"labels", std::move(labels)}}}}}}}}
        .dump();
  }

  static AdmissionResponse DenyLabelled(const AdmissionRequest& req) {
    if (req.object["metadata"]["labels"].value("deny", "") == "true") {
      return Denied("labelled deny", 403);
    }
    return Allowed();
  }

  std::string dir_;
  CertKeyPair ca_;
  Registry registry_;
};

TEST_F(WebhookServerTest, AnswersAnAdmissionReviewOverVerifiedHttps) {
  WebhookServer server(Options());
  ASSERT_TRUE(server.Register("/validate", DenyLabelled).ok());
  ASSERT_TRUE(server.Start().ok());

  auto denied = Post(server.port(), "/validate", Review("uid-1", {{"deny", "true"}}));
  ASSERT_TRUE(denied) << httplib::to_string(denied.error());
  EXPECT_EQ(denied->status, 200);
  EXPECT_EQ(denied->get_header_value("Content-Type"), "application/json");
  Json review = Json::parse(denied->body);
  EXPECT_EQ(review["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(review["response"]["uid"], "uid-1");
  EXPECT_EQ(review["response"]["allowed"], false);
  EXPECT_EQ(review["response"]["status"]["message"], "labelled deny");

  auto allowed = Post(server.port(), "/validate", Review("uid-2", Json::object()));
  ASSERT_TRUE(allowed);
  EXPECT_EQ(Json::parse(allowed->body)["response"]["allowed"], true);

  CounterFamily& requests = registry_.Counter("webhook_requests_total", "", {"path", "code"});
  EXPECT_EQ(requests.Value({"/validate", "200"}), 2);
  EXPECT_EQ(registry_.Histogram("webhook_latency_seconds", "", {"path"}).Count({"/validate"}), 2u);
}

TEST_F(WebhookServerTest, RejectsGarbageWrongTypeWrongMethodAndUnknownPaths) {
  WebhookServer server(Options());
  ASSERT_TRUE(server.Register("/validate", DenyLabelled).ok());
  ASSERT_TRUE(server.Start().ok());

  auto garbage = Post(server.port(), "/validate", "this is not a review");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
  EXPECT_NE(garbage->body.find("not JSON"), std::string::npos) << garbage->body;

  auto old = Post(server.port(), "/validate", R"({"apiVersion":"admission.k8s.io/v1beta1"})");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->status, 400);

  auto text = Post(server.port(), "/validate", Review("u", {}), "text/plain");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->status, 415);

  auto json_utf8 =
      Post(server.port(), "/validate", Review("u", {}), "application/json; charset=utf-8");
  ASSERT_TRUE(json_utf8);
  EXPECT_EQ(json_utf8->status, 200);

  httplib::SSLClient client("127.0.0.1", server.port());
  client.enable_server_certificate_verification(false);
  auto get = client.Get("/validate");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");

  auto unknown = Post(server.port(), "/mutate", Review("u", {}));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);

  CounterFamily& requests = registry_.Counter("webhook_requests_total", "", {"path", "code"});
  EXPECT_EQ(requests.Value({"/validate", "400"}), 2);
  EXPECT_EQ(requests.Value({"/validate", "415"}), 1);
  EXPECT_EQ(requests.Value({"other", "404"}), 1);

  httplib::Client plain("127.0.0.1", server.port());
  auto http = plain.Post("/validate", Review("u", {}), "application/json");
  EXPECT_TRUE(!http || http->status != 200) << "plain HTTP must not be served";
}

TEST_F(WebhookServerTest, AThrowingHandlerIsADenialAndTheServerLivesOn) {
  WebhookServer server(Options());
  ASSERT_TRUE(server
                  .Register("/explode",
                            [](const AdmissionRequest&) -> AdmissionResponse {
                              throw std::runtime_error("handler bug");
                            })
                  .ok());
  ASSERT_TRUE(server.Register("/validate", DenyLabelled).ok());
  ASSERT_TRUE(server.Start().ok());
  for (int i = 0; i < 2; ++i) {
    auto res = Post(server.port(), "/explode", Review("u", {}));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    Json r = Json::parse(res->body)["response"];
    EXPECT_EQ(r["allowed"], false);
    EXPECT_EQ(r["status"]["code"], 500);
    EXPECT_NE(r["status"]["message"].get<std::string>().find("handler bug"), std::string::npos);
  }
  auto ok = Post(server.port(), "/validate", Review("u", {}));
  ASSERT_TRUE(ok);
  EXPECT_EQ(Json::parse(ok->body)["response"]["allowed"], true);
}

TEST_F(WebhookServerTest, RotatedCertificateIsServedWithoutARestart) {
  WebhookServer server(Options());
  ASSERT_TRUE(server.Register("/validate", DenyLabelled).ok());
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(ServedCommonName(server.port()), "serving-1");

  Rotate("serving-2");
  EXPECT_EQ(ServedCommonName(server.port()), "serving-2");
  auto res = Post(server.port(), "/validate", Review("u", {}));
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(Json::parse(res->body)["response"]["allowed"], true);
}

TEST_F(WebhookServerTest, HalfWrittenRotationKeepsThePreviousPair) {
  WebhookServer server(Options());
  ASSERT_TRUE(server.Start().ok());
  CertKeyPair next = Issue("serving-2");
  WriteFile("tls.crt", next.cert_pem);  // key not yet replaced: a mismatched pair
  EXPECT_EQ(ServedCommonName(server.port()), "serving-1");
  WriteFile("tls.key", next.key_pem);
  EXPECT_EQ(ServedCommonName(server.port()), "serving-2");
  WriteFile("tls.crt", "garbage");
  EXPECT_EQ(ServedCommonName(server.port()), "serving-2");
}

TEST_F(WebhookServerTest, FilesAreCheckedAtMostOncePerReloadInterval) {
  FakeClock clock;
  WebhookServer::Options options = Options();
  options.reload_interval = absl::Seconds(10);
  options.clock = &clock;
  WebhookServer server(options);
  ASSERT_TRUE(server.Start().ok());
  Rotate("serving-2");
  clock.Advance(absl::Seconds(9));
  EXPECT_EQ(ServedCommonName(server.port()), "serving-1");
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(ServedCommonName(server.port()), "serving-2");
}

TEST_F(WebhookServerTest, StartAndRegisterErrors) {
  WebhookServer::Options missing = Options();
  missing.cert_file = Path("absent.crt");
  EXPECT_EQ(WebhookServer(missing).Start().code(), absl::StatusCode::kNotFound);

  WriteFile("bad.crt", "not a certificate");
  WebhookServer::Options bad = Options();
  bad.cert_file = Path("bad.crt");
  absl::Status s = WebhookServer(bad).Start();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;

  WebhookServer::Options mismatched = Options();
  WriteFile("other.key", Issue("other").key_pem);
  mismatched.key_file = Path("other.key");
  s = WebhookServer(mismatched).Start();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(s.message().find("PRIVATE"), absl::string_view::npos) << "no key material in errors";

  WebhookServer server(Options());
  EXPECT_EQ(server.Register("relative", DenyLabelled).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(server.Register("/v", nullptr).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(server.Register("/v", DenyLabelled).ok());
  EXPECT_EQ(server.Register("/v", DenyLabelled).code(), absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(server.Register("/late", DenyLabelled).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(server.Start().code(), absl::StatusCode::kFailedPrecondition);
  server.Stop();
  EXPECT_EQ(server.port(), 0);
}

}  // namespace
}  // namespace quorum::runtime
