#include "src/runtime/webhook_cert_renewal.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "src/runtime/certs.h"

namespace quorum::runtime {

absl::StatusOr<absl::Time> WebhookRenewalTime(std::string_view cert_pem,
                                              const SelfManagedCertOptions& o, absl::Time now) {
  absl::StatusOr<absl::Time> not_after = CertificateNotAfter(cert_pem);
  if (!not_after.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the webhook serving certificate: ", not_after.status().message()));
  }
  return std::max(now, *not_after - o.renew_before);
}

namespace {

absl::StatusOr<absl::Time> NextRenewal(const SelfManagedCertOptions& o, absl::Time now) {
  std::ifstream in(o.cert_dir + "/tls.crt");
  std::stringstream pem;
  pem << in.rdbuf();
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", o.cert_dir, "/tls.crt"));
  return WebhookRenewalTime(pem.str(), o, now);
}

}  // namespace

void RenewWebhookCertificates(kube::Client& client, const SelfManagedCertOptions& o,
                              const Clock& clock, const Cancellation& cancel) {
  const absl::Duration kFirstRetry = absl::Minutes(1), kMaxRetry = absl::Hours(1);
  absl::Duration retry = kFirstRetry;
  bool renewed = false;  // the previous round ran EnsureWebhookCertificates, successfully
  while (!cancel.cancelled()) {
    absl::StatusOr<absl::Time> due = NextRenewal(o, clock.Now());
    if (due.ok() && *due > clock.Now()) {
      renewed = false;
      retry = kFirstRetry;
      // A day at most: a clock that jumps (a suspended machine) is caught up with.
      if (cancel.WaitFor(std::min(*due - clock.Now(), absl::Hours(24)))) return;
      continue;
    }
    absl::Status s = !due.ok() ? due.status()
                     : renewed ? absl::InternalError(
                                     "the certificate is still due right after "
                                     "its renewal")
                               : EnsureWebhookCertificates(client, o, clock.Now());
    if (s.ok()) {
      spdlog::info("webhook certificates in {} renewed", o.cert_dir);
      renewed = true;
      continue;
    }
    renewed = false;
    spdlog::warn("renewing the webhook certificates: {} (again in {})", std::string(s.message()),
                 absl::FormatDuration(retry));
    if (cancel.WaitFor(retry)) return;
    retry = std::min(retry * 2, kMaxRetry);
  }
}

}  // namespace quorum::runtime
