#include "src/runtime/certs.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>

#include "absl/time/clock.h"

namespace quorum::runtime {
namespace {

using X509Ptr = std::unique_ptr<X509, decltype(&X509_free)>;

X509Ptr Parse(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), pem.size()), &BIO_free);
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
}

// Verifies with OpenSSL directly (not through certs.h) that `leaf` chains to
// `ca` for TLS server use with the given host or IP.
int VerifyWithOpenSsl(const std::string& leaf, const std::string& ca, const char* host,
                      const char* ip) {
  X509Ptr leaf_cert = Parse(leaf), ca_cert = Parse(ca);
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), &X509_STORE_free);
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                      &X509_STORE_CTX_free);
  X509_STORE_add_cert(store.get(), ca_cert.get());
  X509_STORE_CTX_init(ctx.get(), store.get(), leaf_cert.get(), nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
  if (host != nullptr) X509_VERIFY_PARAM_set1_host(param, host, 0);
  if (ip != nullptr) X509_VERIFY_PARAM_set1_ip_asc(param, ip);
  if (X509_verify_cert(ctx.get()) == 1) return X509_V_OK;
  return X509_STORE_CTX_get_error(ctx.get());
}

class CertsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ca = GenerateCA("test-ca", absl::Hours(48), absl::Now());
    ASSERT_TRUE(ca.ok()) << ca.status();
    ca_ = *ca;
  }
  CertKeyPair ca_;
};

TEST_F(CertsTest, ServingCertificateChainsToTheCaForItsNamesOnly) {
  auto serving = GenerateServingCert(ca_, "webhook", {"webhook.ns.svc", "localhost"},
                                     {"127.0.0.1", "::1"}, absl::Hours(24), absl::Now());
  ASSERT_TRUE(serving.ok()) << serving.status();
  EXPECT_EQ(VerifyWithOpenSsl(serving->cert_pem, ca_.cert_pem, "webhook.ns.svc", nullptr),
            X509_V_OK);
  EXPECT_EQ(VerifyWithOpenSsl(serving->cert_pem, ca_.cert_pem, nullptr, "127.0.0.1"), X509_V_OK);
  EXPECT_EQ(VerifyWithOpenSsl(serving->cert_pem, ca_.cert_pem, nullptr, "::1"), X509_V_OK);
  EXPECT_EQ(VerifyWithOpenSsl(serving->cert_pem, ca_.cert_pem, "other.ns.svc", nullptr),
            X509_V_ERR_HOSTNAME_MISMATCH);
  EXPECT_EQ(VerifyWithOpenSsl(serving->cert_pem, ca_.cert_pem, nullptr, "10.0.0.1"),
            X509_V_ERR_IP_ADDRESS_MISMATCH);
  EXPECT_TRUE(VerifyCertificate(serving->cert_pem, ca_.cert_pem, absl::Now()).ok());
  EXPECT_TRUE(CheckKeyMatchesCertificate(serving->cert_pem, serving->key_pem).ok());
  EXPECT_TRUE(CheckKeyMatchesCertificate(ca_.cert_pem, ca_.key_pem).ok());
}

// Issue 15.3: the database pods' etcd client certificate has no CommonName
// (etcd's JSON gateway refuses one with auth on) and is for clients only.
TEST_F(CertsTest, ClientCertificateHasNoCommonNameAndChainsToTheCa) {
  auto client = GenerateClientCert(ca_, "quorum-postgres", absl::Hours(24), absl::Now());
  ASSERT_TRUE(client.ok()) << client.status();
  auto info = InspectCertificate(client->cert_pem);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->common_name, "");
  EXPECT_FALSE(info->is_ca);
  EXPECT_TRUE(VerifyCertificate(client->cert_pem, ca_.cert_pem, absl::Now()).ok());
  EXPECT_TRUE(CheckKeyMatchesCertificate(client->cert_pem, client->key_pem).ok());
  EXPECT_EQ(VerifyWithOpenSsl(client->cert_pem, ca_.cert_pem, nullptr, nullptr),
            X509_V_ERR_INVALID_PURPOSE)
      << "not a serving certificate";
  auto other = GenerateCA("other-ca", absl::Hours(48), absl::Now());
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(GenerateClientCert({ca_.cert_pem, other->key_pem}, "o", absl::Hours(1), absl::Now())
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GenerateClientCert(ca_, "", absl::Hours(1), absl::Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CertsTest, AnotherCaDoesNotVerifyTheCertificate) {
  auto other = GenerateCA("other-ca", absl::Hours(48), absl::Now());
  ASSERT_TRUE(other.ok());
  auto serving = GenerateServingCert(ca_, "w", {"w"}, {}, absl::Hours(1), absl::Now());
  ASSERT_TRUE(serving.ok());
  EXPECT_NE(VerifyWithOpenSsl(serving->cert_pem, other->cert_pem, nullptr, nullptr), X509_V_OK);
  absl::Status s = VerifyCertificate(serving->cert_pem, other->cert_pem, absl::Now());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_EQ(CheckKeyMatchesCertificate(serving->cert_pem, other->key_pem).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(CertsTest, InspectReportsNamesSerialAndCaFlag) {
  auto serving =
      GenerateServingCert(ca_, "", {"a.example"}, {"127.0.0.1"}, absl::Hours(1), absl::Now());
  ASSERT_TRUE(serving.ok());
  auto info = InspectCertificate(serving->cert_pem);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->common_name, "a.example");  // defaults to the first name
  EXPECT_EQ(info->dns_names, std::vector<std::string>{"a.example"});
  EXPECT_EQ(info->ip_addresses, std::vector<std::string>{"127.0.0.1"});
  EXPECT_FALSE(info->is_ca);
  EXPECT_EQ(info->serial_hex.size(), 32u);

  auto ca_info = InspectCertificate(ca_.cert_pem);
  ASSERT_TRUE(ca_info.ok());
  EXPECT_TRUE(ca_info->is_ca);
  EXPECT_EQ(ca_info->common_name, "test-ca");
  EXPECT_NE(ca_info->serial_hex, info->serial_hex);
}

// The caller's time, not the wall clock's, places a certificate's validity:
// issued at a time ten years ahead, it starts an hour before that time.
TEST(CertsIssueTimeTest, ValidityIsPlacedAtTheTimeGiven) {
  const absl::Time at =
      absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now())) + absl::Hours(24 * 365 * 10);
  auto ca = GenerateCA("future-ca", absl::Hours(48), at);
  ASSERT_TRUE(ca.ok()) << ca.status();
  auto leaf = GenerateClientCert(*ca, "o", absl::Hours(24), at);
  ASSERT_TRUE(leaf.ok()) << leaf.status();
  auto info = InspectCertificate(leaf->cert_pem);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->not_before, at - absl::Hours(1));
  EXPECT_EQ(info->not_after, at + absl::Hours(24));
  EXPECT_TRUE(VerifyCertificate(leaf->cert_pem, ca->cert_pem, at).ok());
  EXPECT_FALSE(VerifyCertificate(leaf->cert_pem, ca->cert_pem, absl::Now()).ok())
      << "not yet valid at the wall clock's time";
}

TEST_F(CertsTest, ExpiryFollowsTheValidityAndNeverOutlivesTheCa) {
  const absl::Time now = absl::Now();
  auto ca_expiry = CertificateNotAfter(ca_.cert_pem);
  ASSERT_TRUE(ca_expiry.ok()) << ca_expiry.status();
  EXPECT_LE(absl::AbsDuration(*ca_expiry - (now + absl::Hours(48))), absl::Minutes(1));

  auto day = GenerateServingCert(ca_, "w", {"w"}, {}, absl::Hours(24), absl::Now());
  ASSERT_TRUE(day.ok());
  auto day_expiry = CertificateNotAfter(day->cert_pem);
  ASSERT_TRUE(day_expiry.ok());
  EXPECT_LE(absl::AbsDuration(*day_expiry - (now + absl::Hours(24))), absl::Minutes(1));
  auto info = InspectCertificate(day->cert_pem);
  ASSERT_TRUE(info.ok());
  EXPECT_LT(info->not_before, now);  // back-dated for clock skew

  auto long_lived = GenerateServingCert(ca_, "w", {"w"}, {}, absl::Hours(24 * 365), absl::Now());
  ASSERT_TRUE(long_lived.ok());
  EXPECT_EQ(*CertificateNotAfter(long_lived->cert_pem), *ca_expiry);

  // Valid now, expired after its notAfter.
  EXPECT_TRUE(VerifyCertificate(day->cert_pem, ca_.cert_pem, now).ok());
  absl::Status later =
      VerifyCertificate(day->cert_pem, ca_.cert_pem, *day_expiry + absl::Minutes(1));
  EXPECT_EQ(later.code(), absl::StatusCode::kFailedPrecondition) << later;
  EXPECT_NE(later.message().find("expired"), absl::string_view::npos) << later;
}

TEST_F(CertsTest, BadInputIsInvalidArgument) {
  EXPECT_EQ(GenerateCA("", absl::Hours(1), absl::Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GenerateCA("ca", absl::ZeroDuration(), absl::Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GenerateServingCert(ca_, "w", {}, {}, absl::Hours(1), absl::Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      GenerateServingCert(ca_, "w", {}, {"300.1.1.1"}, absl::Hours(1), absl::Now()).status().code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GenerateServingCert(ca_, "w", {"a,DNS:evil"}, {}, absl::Hours(1), absl::Now())
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      GenerateServingCert({"garbage", ca_.key_pem}, "w", {"w"}, {}, absl::Hours(1), absl::Now())
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  auto other = GenerateCA("other", absl::Hours(1), absl::Now());
  ASSERT_TRUE(other.ok());
  absl::Status mismatch = GenerateServingCert({ca_.cert_pem, other->key_pem}, "w", {"w"}, {},
                                              absl::Hours(1), absl::Now())
                              .status();
  EXPECT_EQ(mismatch.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mismatch.message().find("PRIVATE KEY"), absl::string_view::npos);
  EXPECT_EQ(CertificateNotAfter("not a pem").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(InspectCertificate("").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CertsTest, KeysArePkcs8Pem) {
  EXPECT_EQ(ca_.key_pem.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
  EXPECT_EQ(ca_.cert_pem.rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
}

}  // namespace
}  // namespace quorum::runtime
