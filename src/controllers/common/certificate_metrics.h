// quorum_certificate_expiry_timestamp_seconds (issue 38, docs/metrics.md):
// when the certificate in each TLS Secret the operator issues expires, read
// from the Secrets in the cache (owned Secrets keep their data there: see
// cache_scopes.h). The certificate itself is the record, so the answer is
// right after a restart and after anyone rewrites the Secret, and a deleted
// Secret's series goes with it.
//
// Thread-safety: TlsSecretNotAfter is pure; CertificateExpiryMemo is
// thread-safe.
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_CERTIFICATE_METRICS_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_CERTIFICATE_METRICS_H_

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/runtime/store.h"

namespace quorum::controllers {

// The notAfter of tls.crt (its first certificate, the leaf) when `secret` is
// a kubernetes.io/tls Secret labelled app.kubernetes.io/managed-by=
// quorum-operator (ours, whatever the cache holds besides) whose tls.crt
// parses; nullopt otherwise. CA Secrets (Opaque) are not reported: a leaf's
// validity never outlasts its CA's, so a CA near its end shows in its leaves.
std::optional<absl::Time> TlsSecretNotAfter(const nlohmann::json& secret);

struct CertificateExpiry {
  std::string ns, secret;
  absl::Time not_after;
  bool operator==(const CertificateExpiry&) const = default;
};

// TlsSecretNotAfter over the Secrets of each scrape, parsing again only the
// Secrets whose uid or resourceVersion changed since the previous call (an
// X.509 parse per Secret per scrape would cost tens of milliseconds with
// thousands of clusters). Remembers only the Secrets of the last call.
// Memory: one small entry per Secret of the last call.
class CertificateExpiryMemo {
 public:
  // In the order of `secrets`.
  std::vector<CertificateExpiry> Collect(const std::vector<runtime::ObjectPtr>& secrets);
  size_t size() const;

 private:
  struct Entry {
    std::string version;  // uid/resourceVersion
    std::optional<absl::Time> not_after;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, Entry> by_key_ ABSL_GUARDED_BY(mu_);  // namespace/name
};

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_CERTIFICATE_METRICS_H_
