// spec.clientCertificate of a PostgresRole: a client certificate for the
// role (CommonName: its name, clientAuth) issued from the CA that issues its
// PostgresCluster's certificates — the cluster's own <cluster>-ca, or the
// user's spec.tls.caSecret — which PostgreSQL's ssl_ca_file holds, so that a
// pg_hba rule with method cert admits it. Kept in Secret
// <cluster>-role-<name>-cert (kubernetes.io/tls: ca.crt, tls.crt, tls.key,
// and username), owned by the PostgresRole; reissued when it no longer
// verifies against the CA, the CA changed, or a third of its lifetime is
// left; deleted when spec.clientCertificate goes. With spec.tls.customSecret
// Quorum holds no CA key and issues nothing (said in status).
//
// Thread-safety: JudgeRoleCertificate is pure; the rest as the clients given.
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_ROLE_CERT_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_ROLE_CERT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/postgrescluster_types.h"
#include "api/postgresrole_types.h"
#include "src/kube/client.h"
#include "src/runtime/cache.h"
#include "src/runtime/certs.h"
#include "src/runtime/event_recorder.h"

namespace quorum::postgresobjects {

// Capped at the CA's own expiry.
inline constexpr absl::Duration kRoleCertValidity = absl::Hours(24 * 365);

// <cluster>-role-<name>-cert.
std::string RoleCertSecretName(const std::string& cluster, const std::string& role);

// Whether the stored certificate still serves, decided at `now`.
struct RoleCertVerdict {
  std::string reissue_because;  // "" when it serves
  absl::Time renew_at;          // when it stops serving (a third of its lifetime left)
  absl::Time not_after;
};
// `cert_pem`, `stored_ca_pem`: the Secret's tls.crt and ca.crt ("" when
// there is none); `ca_pem`: the issuing CA now.
RoleCertVerdict JudgeRoleCertificate(const std::string& cert_pem, const std::string& stored_ca_pem,
                                     const std::string& ca_pem, absl::Time now);

// The CA that issues `cluster`'s certificates, from the cache (a user's
// caSecret through its read-through). Errors: FailedPrecondition when Quorum
// holds no CA key (spec.tls.customSecret, or a caSecret without its key);
// Unavailable when the Secret is not there yet.
absl::StatusOr<runtime::CertKeyPair> ReadIssuingCa(const runtime::Cache& cache,
                                                   const api::PostgresCluster& cluster);

// Keeps (or, without spec.clientCertificate, deletes) the role's certificate
// Secret at `now`; sets status.certificateSecret and certificateNotAfter.
// Returns when to look again (the renewal time; nullopt without a
// certificate). Events: CertificateIssued, CertificateRenewed (with why).
// Errors: ReadIssuingCa's, the API server's.
absl::StatusOr<std::optional<absl::Time>> EnsureRoleCertificate(
    kube::Client& client, const runtime::Cache& cache, runtime::EventRecorder& recorder,
    const nlohmann::json& stored, const api::PostgresRole& role,
    const api::PostgresCluster& cluster, absl::Time now, api::PostgresObjectStatus& status);

}  // namespace quorum::postgresobjects

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESOBJECTS_ROLE_CERT_H_
