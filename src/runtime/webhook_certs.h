// Self-managed admission webhook certificates, so that installing Quorum needs
// no cert-manager: a CA and serving certificate kept in a Secret shared by all
// replicas, written to a folder the WebhookServer reads (and reloads), and
// the CA patched into the webhook configurations as their caBundle.
//
// Thread-safety: EnsureWebhookCertificates may run concurrently, in one
// process or in several replicas; writes to the API use create-or-conflict
// and resourceVersion preconditions, and files are replaced atomically.
#ifndef QUORUM_SRC_RUNTIME_WEBHOOK_CERTS_H_
#define QUORUM_SRC_RUNTIME_WEBHOOK_CERTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "src/kube/client.h"

namespace quorum::runtime {

struct SelfManagedCertOptions {
  std::string secret_namespace, secret_name;  // a kubernetes.io/tls Secret with ca.crt
  std::string cert_dir;  // receives tls.crt, tls.key, ca.crt (created when missing)
  // SANs of the serving certificate, e.g. "quorum-webhook.quorum-system.svc".
  std::vector<std::string> dns_names, ip_addresses;
  // admissionregistration.k8s.io/v1 configurations whose every webhook gets
  // the CA as clientConfig.caBundle.
  std::vector<std::string> validating_configurations, mutating_configurations;
  absl::Duration validity = absl::Hours(24 * 365);
  absl::Duration renew_before = absl::Hours(24 * 30);
};

// Makes the Secret hold a usable CA and serving certificate (generating both
// when it is missing, unparsable, not chaining, expiring within renew_before
// or lacking one of the SANs), writes the files, and patches the caBundle of
// every named configuration. `now` is the time expiry is judged at and new
// certificates are issued from. Idempotent: when all is already right it writes
// nothing to the API (resourceVersions stay) and leaves the files untouched.
// Errors: InvalidArgument for unusable options; NotFound naming a
// configuration that does not exist (the others are still patched);
// Aborted when replicas kept racing; Internal for file-system failures; other
// API errors as the client returns them (errors.h).
absl::Status EnsureWebhookCertificates(kube::Client& client, const SelfManagedCertOptions& o,
                                       absl::Time now);

}  // namespace quorum::runtime

#endif  // QUORUM_SRC_RUNTIME_WEBHOOK_CERTS_H_
