// The TLS and REST-credential phase of a PostgresCluster reconcile (tls.h,
// access.h): the cluster's CA (generated once, or the user's caSecret), the
// members' server certificate <cluster>-tls issued from it and rewritten
// when ServerCertRenewalReason says so (a Normal event names why), or the
// user's customSecret checked; and the REST API credentials Secret, created
// once. Internal to the controller.
//
// Errors: FailedPrecondition naming a user's Secret that is missing or
// unusable (retried with backoff; fixing the Secret moves on); others are
// the API server's or OpenSSL's.
// Thread-safety: as the clients it is given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ENSURE_TLS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ENSURE_TLS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "src/controllers/postgrescluster/phase.h"
#include "src/controllers/postgrescluster/tls.h"
#include "src/patroni/rest_client.h"

namespace quorum::postgrescluster {

// After a renewal the members are told to reload (POST /reload) every
// kReloadInterval for kReloadWindow: the kubelet swaps a changed Secret's
// files within about a minute (its sync period plus its cache's TTL).
inline constexpr absl::Duration kReloadWindow = absl::Minutes(3);
inline constexpr absl::Duration kReloadInterval = absl::Seconds(30);

struct TlsState {
  std::string ca_pem;  // what the members' certificate chains to
  // The operator's client certificate for the members' REST API (tls.h
  // OperatorClientCerts); empty with spec.tls.customSecret (no CA key).
  runtime::CertKeyPair operator_client;
  bool renewed = false;  // <cluster>-tls was (re)written by this reconcile
  // With spec.tls.customSecret: a digest of what it holds (CA, certificate,
  // key), so that the reconciler notices the user's renewal and has the
  // members reload as after its own (this process only: not stable).
  std::optional<size_t> custom_digest;
  std::optional<absl::Time> renew_at;  // when the stored certificate is due (owned only)
};

// `memo` spares checking an unchanged stored certificate again (tls.h);
// `client_certs` keeps the operator's client certificate per cluster. Expiry
// is judged, and certificates issued, at `p.now`.
absl::StatusOr<TlsState> EnsureTls(const Phase& p, ServerCertMemo& memo,
                                   OperatorClientCerts& client_certs);

// With backups, the backup Jobs' client certificate
// (<cluster>-pgbackrest-client, tls.h), created once when missing.
absl::Status EnsurePgBackRestClient(const Phase& p);

// The REST API credentials (<cluster>-patroni-api), created when missing.
absl::StatusOr<patroni::BasicAuth> EnsureRestApiSecret(const Phase& p);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_ENSURE_TLS_H_
