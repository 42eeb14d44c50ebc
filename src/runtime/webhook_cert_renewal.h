// Keeping the self-managed admission webhook certificates (webhook_certs.h)
// valid while the operator runs. EnsureWebhookCertificates at start renews a
// certificate that expires within renew_before, but an operator that runs
// longer than validity - renew_before (11 months by default) would otherwise
// serve an expired certificate, and every admission request (failurePolicy
// Fail) would be refused. The renewal sleeps until the serving certificate's
// renewal time (a timer, not a poll) and runs EnsureWebhookCertificates then;
// the WebhookServer reloads the files it writes.
//
// Thread-safety: WebhookRenewalTime is pure; RenewWebhookCertificates runs on
// the caller's thread until `cancel` is cancelled.
#ifndef QUORUM_SRC_RUNTIME_WEBHOOK_CERT_RENEWAL_H_
#define QUORUM_SRC_RUNTIME_WEBHOOK_CERT_RENEWAL_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/base/cancellation.h"
#include "src/base/clock.h"
#include "src/kube/client.h"
#include "src/runtime/webhook_certs.h"

namespace quorum::runtime {

// When the serving certificate `cert_pem` (its leaf) is due for renewal:
// o.renew_before before its notAfter, and never before `now`.
// Errors: InvalidArgument when it does not parse.
absl::StatusOr<absl::Time> WebhookRenewalTime(std::string_view cert_pem,
                                              const SelfManagedCertOptions& o, absl::Time now);

// Until `cancel` is cancelled: waits until WebhookRenewalTime of
// o.cert_dir/tls.crt, then EnsureWebhookCertificates. A failure (or a file
// that cannot be read) is logged and retried after a minute, doubling up to
// an hour. Waits at most a day at a time, so a clock that jumps is caught up
// with.
void RenewWebhookCertificates(kube::Client& client, const SelfManagedCertOptions& o,
                              const Clock& clock, const Cancellation& cancel);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_WEBHOOK_CERT_RENEWAL_H_
