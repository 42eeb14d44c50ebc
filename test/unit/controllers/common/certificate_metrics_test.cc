// Which Secrets report a certificate expiry, and the memo that spares
// parsing unchanged ones at every scrape.
#include "src/controllers/common/certificate_metrics.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "src/controllers/common/secret_data.h"
#include "src/runtime/certs.h"

namespace quorum::controllers {
namespace {

using nlohmann::json;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

std::string Leaf(absl::Duration validity) {
  absl::StatusOr<runtime::CertKeyPair> ca = runtime::GenerateCA("ca", absl::Hours(24 * 365), kNow);
  EXPECT_TRUE(ca.ok()) << ca.status();
  absl::StatusOr<runtime::CertKeyPair> leaf =
      runtime::GenerateServingCert(*ca, "", {"db.example"}, {}, validity, kNow);
  EXPECT_TRUE(leaf.ok()) << leaf.status();
  return leaf->cert_pem;
}

json Secret(const std::string& name, const std::string& cert_pem, const char* version = "1",
            const char* type = "kubernetes.io/tls", const char* managed_by = "quorum-operator") {
  json s = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       {{"namespace", "db"}, {"name", name}, {"uid", "u-" + name}, {"resourceVersion", version}}},
      {"type", type},
      {"data", EncodedSecretData({{"ca.crt", cert_pem}, {"tls.crt", cert_pem}})}};
  if (managed_by != nullptr) {
    s["metadata"]["labels"] = {{"app.kubernetes.io/managed-by", managed_by}};
  }
  return s;
}

TEST(TlsSecretNotAfterTest, ReportsOnlyOurTlsSecretsWithAParsableCertificate) {
  const std::string pem = Leaf(absl::Hours(24 * 90));
  const absl::Time not_after = *runtime::CertificateNotAfter(pem);
  json no_cert = Secret("s", pem);
  no_cert["data"].erase("tls.crt");
  struct Case {
    const char* name;
    json secret;
    std::optional<absl::Time> want;
  } cases[] = {
      {"ours", Secret("s", pem), not_after},
      {"a CA Secret (Opaque)", Secret("s", pem, "1", "Opaque"), std::nullopt},
      {"unlabelled (a user's, in an unscoped cache)",
       Secret("s", pem, "1", "kubernetes.io/tls", nullptr), std::nullopt},
      {"someone else's", Secret("s", pem, "1", "kubernetes.io/tls", "cert-manager"), std::nullopt},
      {"no tls.crt", no_cert, std::nullopt},
      {"tls.crt not a certificate", Secret("s", "-----BEGIN CERTIFICATE-----\nno\n"), std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(TlsSecretNotAfter(c.secret), c.want) << c.name;
}

runtime::ObjectPtr Ptr(json j) { return std::make_shared<const json>(std::move(j)); }

TEST(CertificateExpiryMemoTest, ReportsEachTlsSecretOfTheCallAndForgetsTheRest) {
  const std::string pem90 = Leaf(absl::Hours(24 * 90)), pem30 = Leaf(absl::Hours(24 * 30));
  const absl::Time end90 = *runtime::CertificateNotAfter(pem90);
  const absl::Time end30 = *runtime::CertificateNotAfter(pem30);
  CertificateExpiryMemo memo;
  EXPECT_EQ(memo.Collect({Ptr(Secret("a-tls", pem90)), Ptr(Secret("b-tls", pem30)),
                          Ptr(Secret("a-ca", pem90, "1", "Opaque"))}),
            (std::vector<CertificateExpiry>{{"db", "a-tls", end90}, {"db", "b-tls", end30}}));
  EXPECT_EQ(memo.size(), 3u);
  // b-tls was deleted: its series goes, and so does its entry.
  EXPECT_EQ(memo.Collect({Ptr(Secret("a-tls", pem90))}),
            (std::vector<CertificateExpiry>{{"db", "a-tls", end90}}));
  EXPECT_EQ(memo.size(), 1u);
}

TEST(CertificateExpiryMemoTest, ParsesAgainOnlyWhenTheResourceVersionChanges) {
  const std::string pem90 = Leaf(absl::Hours(24 * 90)), pem30 = Leaf(absl::Hours(24 * 30));
  const absl::Time end90 = *runtime::CertificateNotAfter(pem90);
  const absl::Time end30 = *runtime::CertificateNotAfter(pem30);
  CertificateExpiryMemo memo;
  memo.Collect({Ptr(Secret("a-tls", pem90, "1"))});
  // The same version with other bytes (impossible from the API server)
  // shows that the remembered answer is used.
  EXPECT_EQ(memo.Collect({Ptr(Secret("a-tls", pem30, "1"))}),
            (std::vector<CertificateExpiry>{{"db", "a-tls", end90}}));
  // Renewed: a new resourceVersion is read again.
  EXPECT_EQ(memo.Collect({Ptr(Secret("a-tls", pem30, "2"))}),
            (std::vector<CertificateExpiry>{{"db", "a-tls", end30}}));
}

}  // namespace
}  // namespace quorum::controllers
