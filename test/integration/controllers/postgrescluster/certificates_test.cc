// The PostgresCluster controller's certificates against the real control
// plane: the server certificate issued and renewed before expiry (on the
// reconciler's clock), and connection Secrets made before TLS gaining the CA
// with their passwords kept.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "api/postgrescluster.h"
#include "src/controllers/common/secret_data.h"
#include "src/runtime/certs.h"
#include "test/integration/controllers/postgrescluster/fixture.h"

namespace quorum::postgrescluster {
namespace {

using kube::Json;
using testenv::Eventually;

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
               !controllers::SecretValue(*superuser, "ca.crt").empty();
      },
      absl::Seconds(30)));
  const std::string ca_pem = controllers::SecretValue(*ca, "ca.crt");
  EXPECT_EQ(controllers::SecretValue(*tls, "ca.crt"), ca_pem);
  EXPECT_TRUE(
      runtime::VerifyCertificate(controllers::SecretValue(*tls, "tls.crt"), ca_pem, absl::Now())
          .ok());
  absl::StatusOr<runtime::CertificateInfo> info =
      runtime::InspectCertificate(controllers::SecretValue(*tls, "tls.crt"));
  ASSERT_TRUE(info.ok());
  for (const std::string& name : {"sec." + ns() + ".svc", "*.sec-pods." + ns() + ".svc",
                                  "sec-replicas." + ns() + ".svc.cluster.local"}) {
    EXPECT_NE(std::find(info->dns_names.begin(), info->dns_names.end(), name),
              info->dns_names.end())
        << name;
  }
  EXPECT_EQ(controllers::SecretValue(*superuser, "ca.crt"), ca_pem);
  EXPECT_EQ(controllers::SecretValue(*superuser, "sslmode"), "verify-full");
  EXPECT_EQ((*api)["type"], "kubernetes.io/basic-auth");
  absl::StatusOr<Json> sts;
  ASSERT_TRUE(Eventually([&] { return (sts = client().Get(kStatefulSets, ns(), "sec-main")).ok(); },
                         absl::Seconds(30)));
  const std::string pod = (*sts)["spec"]["template"]["spec"].dump();
  EXPECT_TRUE(absl::StrContains(
      pod, R"({"name":"tls","secret":{"defaultMode":288,"secretName":"sec-tls"}})"))
      << pod;
  EXPECT_TRUE(absl::StrContains(pod, "PATRONI_RESTAPI_PASSWORD"));
  EXPECT_FALSE(absl::StrContains(pod, controllers::SecretValue(*api, "password")));
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
  // No plaintext rule for everyone (allowPlaintext is off); the exporter's
  // role has a `host ... reject` line of its own (monitoring.h).
  EXPECT_FALSE(absl::StrContains(yaml, "- host all all all")) << yaml;
  EXPECT_FALSE(absl::StrContains(yaml, controllers::SecretValue(*api, "password")));
  EXPECT_TRUE(client().Get(kNetworkPolicies, ns(), "sec").ok());

  // Near its expiry (a minute left of an hour): the operator renews it in
  // the same Secret, from the same CA.
  runtime::CertKeyPair ca_pair{ca_pem, controllers::SecretValue(*ca, "ca.key")};
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
        renewed = runtime::InspectCertificate(controllers::SecretValue(*now, "tls.crt"));
        return renewed.ok() && renewed->not_after > absl::Now() + absl::Hours(24 * 80) &&
               runtime::CheckKeyMatchesCertificate(controllers::SecretValue(*now, "tls.crt"),
                                                   controllers::SecretValue(*now, "tls.key"))
                   .ok();
      },
      absl::Seconds(30)));
  EXPECT_NE(renewed->serial_hex, info->serial_hex);
  absl::StatusOr<Json> after = client().Get(kSecrets, ns(), "sec-tls");
  EXPECT_TRUE(
      runtime::VerifyCertificate(controllers::SecretValue(*after, "tls.crt"), ca_pem, absl::Now())
          .ok());
  EXPECT_EQ((*after)["metadata"]["uid"], (*tls)["metadata"]["uid"]) << "renewed in place";
}

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
  const std::string ca_pem = controllers::SecretValue(*ca, "ca.crt");
  // As the operator wrote them before TLS: no ca.crt, no sslmode, a uri
  // without one.
  std::map<std::string, std::string> passwords;
  for (const char* name : {"old-superuser", "old-user-app", "old-replication"}) {
    absl::StatusOr<Json> s = client().Get(kSecrets, ns(), name);
    ASSERT_TRUE(s.ok()) << name;
    passwords[name] = controllers::SecretValue(*s, "password");
    Json& data = (*s)["data"];
    data.erase("ca.crt");
    data.erase("sslmode");
    if (data.contains("uri")) {
      std::string uri = controllers::SecretValue(*s, "uri");
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
    EXPECT_EQ(controllers::SecretValue(*s, "ca.crt"), ca_pem) << name;
    EXPECT_EQ(controllers::SecretValue(*s, "password"), passwords[name]) << name;
    if (std::string(name) == "old-replication") continue;
    EXPECT_EQ(controllers::SecretValue(*s, "sslmode"), "verify-full") << name;
    EXPECT_TRUE(absl::EndsWith(controllers::SecretValue(*s, "uri"), "?sslmode=verify-full"))
        << controllers::SecretValue(*s, "uri");
    EXPECT_TRUE(absl::StrContains(controllers::SecretValue(*s, "uri"), ":" + passwords[name] + "@"))
        << name;
  }
  // Done: an unchanged cluster's reconcile writes nothing.
  ExpectANoOpReconcileWritesNothing("old");
}

TEST_F(PostgresClusterControllerTest, TheServerCertificateComingDueOnTheClockIsRenewedInPlace) {
  ASSERT_TRUE(client().Create(kPostgresClusters, ns(), Cluster("due", Json::object())).ok());
  ASSERT_TRUE(
      Eventually([&] { return client().Get(kSecrets, ns(), "due-tls").ok(); }, absl::Seconds(30)));
  ExpectANoOpReconcileWritesNothing("due");
  absl::StatusOr<Json> tls = client().Get(kSecrets, ns(), "due-tls");
  ASSERT_TRUE(tls.ok());
  absl::StatusOr<runtime::CertificateInfo> first =
      runtime::InspectCertificate(controllers::SecretValue(*tls, "tls.crt"));
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
        renewed = runtime::InspectCertificate(controllers::SecretValue(*after, "tls.crt"));
        return renewed.ok() && renewed->serial_hex != first->serial_hex;
      },
      absl::Seconds(30)))
      << "the certificate due on the clock was not renewed";
  EXPECT_GT(renewed->not_after, first->not_after);
  EXPECT_EQ((*after)["metadata"]["uid"], (*tls)["metadata"]["uid"]) << "renewed in place";
  EXPECT_TRUE(runtime::VerifyCertificate(controllers::SecretValue(*after, "tls.crt"),
                                         controllers::SecretValue(*tls, "ca.crt"), clock_.Now())
                  .ok());
  EXPECT_TRUE(runtime::CheckKeyMatchesCertificate(controllers::SecretValue(*after, "tls.crt"),
                                                  controllers::SecretValue(*after, "tls.key"))
                  .ok());
}

}  // namespace
}  // namespace quorum::postgrescluster
