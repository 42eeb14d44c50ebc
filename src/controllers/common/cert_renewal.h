// Whether a certificate Quorum issued and stored in a Secret still serves,
// and when it is due for renewal: shared by the PostgresCluster's server
// certificate and the EtcdCluster's certificates. Certificates are renewed
// when a third of their lifetime is left and rewritten in place, so the
// kubelet swaps the mounted files and nothing restarts.
//
// Thread-safety: pure functions, except CertRenewalMemo (thread-safe).
#ifndef QUORUM_SRC_CONTROLLERS_COMMON_CERT_RENEWAL_H_
#define QUORUM_SRC_CONTROLLERS_COMMON_CERT_RENEWAL_H_

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace quorum::controllers {

// Whether a stored certificate must be (re)issued, and why ("" when
// it still serves): missing or unparsable, its key does not match, it does
// not chain to `ca_pem` at `now`, its names differ from `want_dns`, it
// cannot authenticate a client when `want_client_auth` (issued before it had
// to), or less than a third of its lifetime is left.
std::string CertRenewalReason(const std::string& cert_pem, const std::string& key_pem,
                              const std::string& ca_pem, const std::vector<std::string>& want_dns,
                              absl::Time now, bool want_client_auth = false);

// CertRenewalReason without parsing, matching and verifying the same
// PEM again at every reconcile (OpenSSL 3 spends about a millisecond on
// reading a private key: 12 % of the operator's CPU while 100
// PostgresClusters were created). A "" answer is remembered per cluster with
// a SHA-256 digest of its inputs and holds, for the very same inputs, until
// the certificate's renewal time or the end of the CA's validity, whichever
// comes first: before then every check would pass again (the verification
// also passed at an earlier time, so after the certificate's and the CA's
// not-before). Any other answer is computed again next time.
// Memory: one entry (~80 bytes) per cluster whose certificate is good;
// Forget drops a cluster's.
class CertRenewalMemo {
 public:
  // CertRenewalReason(cert_pem, key_pem, ca_pem, want_dns, now); when it
  // is "", also when the certificate is due for renewal (`renew_at`).
  std::string RenewalReason(const std::string& cluster_key, const std::string& cert_pem,
                            const std::string& key_pem, const std::string& ca_pem,
                            const std::vector<std::string>& want_dns, absl::Time now,
                            std::optional<absl::Time>& renew_at, bool want_client_auth = false);
  void Forget(const std::string& cluster_key);
  size_t size() const;

 private:
  struct Good {
    std::array<unsigned char, 32> inputs;  // SHA-256 of the inputs
    absl::Time holds_until;
    absl::Time renew_at;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, Good> good_ ABSL_GUARDED_BY(mu_);  // namespace/name -> answer ""
};

// When a certificate issued at `not_before` for `not_after` is due for
// renewal (two thirds of its lifetime): the reconcile wakes up then.
absl::Time RenewalTime(absl::Time not_before, absl::Time not_after);

}  // namespace quorum::controllers

#endif  // QUORUM_SRC_CONTROLLERS_COMMON_CERT_RENEWAL_H_
