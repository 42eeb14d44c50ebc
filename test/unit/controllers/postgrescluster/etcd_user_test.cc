// The pure parts of the pods' own etcd user (issue 15.3): the Secrets, when
// the pods' client certificate is issued again, and where the CA's key is.
#include "src/controllers/postgrescluster/etcd_user.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "api/postgrescluster.h"
#include "src/runtime/certs.h"

namespace quorum::postgrescluster {
namespace {

PostgresCluster Hippo() {
  PostgresCluster c;
  c.metadata.name = "hippo";
  c.metadata.ns = "db";
  c.metadata.uid = "u-1";
  return c;
}

Json SecretData(std::map<std::string, std::string> data) {
  Json d = Json::object();
  for (const auto& [k, v] : data) d[k] = absl::Base64Escape(v);
  return {{"data", d}};
}

TEST(EtcdUserTest, SecretsAreOwnedTypedAndNamedAfterTheCluster) {
  const Json user = BuildEtcdUserSecret(Hippo(), "quorum-pg.db.hippo", "pw");
  EXPECT_EQ(user["metadata"]["name"], "hippo-etcd-user");
  EXPECT_EQ(user["type"], "kubernetes.io/basic-auth");
  EXPECT_EQ(user["data"]["username"], absl::Base64Escape("quorum-pg.db.hippo"));
  EXPECT_EQ(user["metadata"]["ownerReferences"][0]["uid"], "u-1");
  EXPECT_EQ(user["metadata"]["labels"]["app.kubernetes.io/managed-by"], "quorum-operator");
  const Json cert = BuildEtcdClientSecret(Hippo(), "CA", "CERT", "KEY");
  EXPECT_EQ(cert["metadata"]["name"], "hippo-etcd-client");
  EXPECT_EQ(cert["type"], "kubernetes.io/tls");
  EXPECT_EQ(cert["data"]["ca.crt"], absl::Base64Escape("CA"));
  EXPECT_EQ(EtcdUserName(Hippo()), "quorum-pg.db.hippo");
}

TEST(EtcdUserTest, SigningCaPrefersTlsKeyThenCaKey) {
  SigningCa ca =
      SigningCaFrom(SecretData({{"ca.crt", "ROOT"}, {"tls.crt", "C"}, {"tls.key", "K"}}));
  EXPECT_EQ(ca.cert_pem, "C");
  EXPECT_EQ(ca.key_pem, "K");
  ca = SigningCaFrom(SecretData({{"ca.crt", "C2"}, {"ca.key", "K2"}}));
  EXPECT_EQ(ca.cert_pem, "C2");
  EXPECT_EQ(ca.key_pem, "K2");
  ca = SigningCaFrom(SecretData({{"ca.crt", "C3"}}));
  EXPECT_EQ(ca.key_pem, "");
}

TEST(EtcdUserTest, TheClientCertificateIsIssuedAgainOnlyWhenNeeded) {
  auto ca = runtime::GenerateCA("client-ca", absl::Hours(24 * 365 * 11), absl::Now());
  auto other = runtime::GenerateCA("other-ca", absl::Hours(24 * 365 * 11), absl::Now());
  ASSERT_TRUE(ca.ok() && other.ok());
  auto cert = runtime::GenerateClientCert(*ca, "quorum-postgres", kClientCertValidity, absl::Now());
  ASSERT_TRUE(cert.ok());
  const absl::Time now = absl::Now();
  EXPECT_FALSE(NeedsNewClientCert(cert->cert_pem, "SCA", ca->cert_pem, "SCA", now));
  EXPECT_TRUE(NeedsNewClientCert("", "SCA", ca->cert_pem, "SCA", now)) << "missing";
  EXPECT_TRUE(NeedsNewClientCert(cert->cert_pem, "SCA", other->cert_pem, "SCA", now))
      << "the client CA changed";
  EXPECT_TRUE(NeedsNewClientCert(cert->cert_pem, "OLD", ca->cert_pem, "SCA", now))
      << "the members' CA changed";
  EXPECT_TRUE(NeedsNewClientCert(cert->cert_pem, "SCA", ca->cert_pem, "SCA",
                                 now + kClientCertValidity - kClientCertRenewBefore / 2))
      << "close to expiry";
}

}  // namespace
}  // namespace quorum::postgrescluster
