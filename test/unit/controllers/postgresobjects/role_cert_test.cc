// When a PostgresRole's client certificate is (re)issued (role_cert.h):
// a table over certificates made here, judged at chosen times.
#include "src/controllers/postgresobjects/role_cert.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace quorum::postgresobjects {
namespace {

TEST(RoleCertSecretNameTest, FollowsTheRoleSecret) {
  EXPECT_EQ(RoleCertSecretName("hippo", "App_User"), "hippo-role-app-user-cert");
}

TEST(JudgeRoleCertificateTest, ReissuesOnlyWhatNoLongerServes) {
  const absl::Time t0 = absl::FromUnixSeconds(1'800'000'000);
  absl::StatusOr<runtime::CertKeyPair> ca =
      runtime::GenerateCA("cluster CA", absl::Hours(24 * 3650), t0);
  absl::StatusOr<runtime::CertKeyPair> other =
      runtime::GenerateCA("another CA", absl::Hours(24 * 3650), t0);
  ASSERT_TRUE(ca.ok() && other.ok());
  absl::StatusOr<runtime::CertKeyPair> cert =
      runtime::GenerateClientCert(*ca, "quorum", kRoleCertValidity, t0, "app");
  absl::StatusOr<runtime::CertKeyPair> foreign =
      runtime::GenerateClientCert(*other, "quorum", kRoleCertValidity, t0, "app");
  ASSERT_TRUE(cert.ok() && foreign.ok());

  struct Case {
    const char* what;
    std::string cert, stored_ca;
    absl::Time now;
    std::string want;  // a part of reissue_because; "" = serves
  };
  // Issued certificates start a little before `now` (clock skew): the
  // lifetime is read back.
  absl::StatusOr<runtime::CertificateInfo> info = runtime::InspectCertificate(cert->cert_pem);
  ASSERT_TRUE(info.ok());
  const absl::Time renew = info->not_after - (info->not_after - info->not_before) / 3;
  const std::vector<Case> cases = {
      {"none yet", "", "", t0, "no certificate yet"},
      {"unreadable", "garbage", ca->cert_pem, t0, "cannot be read"},
      {"fresh", cert->cert_pem, ca->cert_pem, t0 + absl::Hours(1), ""},
      {"just before a third is left", cert->cert_pem, ca->cert_pem, renew - absl::Minutes(1), ""},
      {"a third left", cert->cert_pem, ca->cert_pem, renew + absl::Minutes(1), "expires at"},
      {"the CA changed", cert->cert_pem, other->cert_pem, t0 + absl::Hours(1), "CA changed"},
      {"signed by another CA", foreign->cert_pem, ca->cert_pem, t0 + absl::Hours(1),
       "does not verify"},
  };
  for (const Case& c : cases) {
    const RoleCertVerdict v = JudgeRoleCertificate(c.cert, c.stored_ca, ca->cert_pem, c.now);
    if (c.want.empty()) {
      EXPECT_EQ(v.reissue_because, "") << c.what;
    } else {
      EXPECT_TRUE(absl::StrContains(v.reissue_because, c.want))
          << c.what << ": " << v.reissue_because;
    }
  }
  const RoleCertVerdict fresh =
      JudgeRoleCertificate(cert->cert_pem, ca->cert_pem, ca->cert_pem, t0);
  EXPECT_EQ(fresh.renew_at, renew);
  EXPECT_EQ(fresh.not_after, info->not_after);
  EXPECT_GE(info->not_after, t0 + kRoleCertValidity);
}

}  // namespace
}  // namespace quorum::postgresobjects
