// WebhookRenewalTime (src/runtime/webhook_cert_renewal.h): a serving
// certificate is due renew_before before it expires, never in the past, and
// an unreadable one is an error, not a renewal time.
#include "src/runtime/webhook_cert_renewal.h"

#include <gtest/gtest.h>

#include "src/runtime/certs.h"

namespace quorum::runtime {
namespace {

TEST(WebhookRenewalTimeTest, RenewBeforeExpiryNeverInThePast) {
  const absl::Time issued = absl::FromUnixSeconds(1'800'000'000);
  absl::StatusOr<CertKeyPair> ca = GenerateCA("ca", absl::Hours(24 * 400), issued);
  ASSERT_TRUE(ca.ok()) << ca.status();
  absl::StatusOr<CertKeyPair> serving =
      GenerateServingCert(*ca, "quorum-webhook", {"quorum-webhook.quorum-system.svc"}, {},
                          absl::Hours(24 * 365), issued);
  ASSERT_TRUE(serving.ok()) << serving.status();
  absl::StatusOr<absl::Time> not_after = CertificateNotAfter(serving->cert_pem);
  ASSERT_TRUE(not_after.ok());
  const SelfManagedCertOptions o;  // 365 days, renewed 30 days before
  struct Case {
    const char* name;
    absl::Time now;
    absl::Time want;
  } cases[] = {
      {"just issued: 30 days before expiry", issued, *not_after - absl::Hours(24 * 30)},
      {"inside the renewal window: now", *not_after - absl::Hours(24),
       *not_after - absl::Hours(24)},
      {"expired: now", *not_after + absl::Hours(1), *not_after + absl::Hours(1)},
  };
  for (const Case& c : cases) {
    absl::StatusOr<absl::Time> due = WebhookRenewalTime(serving->cert_pem, o, c.now);
    ASSERT_TRUE(due.ok()) << c.name << ": " << due.status();
    EXPECT_EQ(*due, c.want) << c.name;
  }
  absl::StatusOr<absl::Time> garbage = WebhookRenewalTime("not a certificate", o, issued);
  EXPECT_TRUE(absl::IsInvalidArgument(garbage.status())) << garbage.status();
}

}  // namespace
}  // namespace quorum::runtime
