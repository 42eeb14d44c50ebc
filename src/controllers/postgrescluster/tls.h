// PostgreSQL TLS of a PostgresCluster (issue 15.1), pure parts: which names
// the server certificate must carry, whether a stored one still serves, and
// the Secrets that hold the cluster's CA and the members' certificate.
//
// Where the certificate comes from (spec.tls):
//   * default: a CA per cluster, generated once into <cluster>-ca (ca.crt,
//     ca.key; owned, never rewritten); the server certificate in
//     <cluster>-tls (kubernetes.io/tls: ca.crt, tls.crt, tls.key; owned)
//     is issued from it and rewritten before it expires;
//   * spec.tls.caSecret: the same, issued from the user's CA (tls.crt +
//     tls.key, or ca.crt + ca.key) instead of a generated one;
//   * spec.tls.customSecret: the user's own kubernetes.io/tls Secret (ca.crt,
//     tls.crt, tls.key) is mounted as it is; the user renews it.
// Certificates are made by src/runtime/certs.h (the signer the etcd side
// uses too).
//
// Thread-safety: pure functions, except ServerCertMemo (thread-safe).
#ifndef QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_TLS_H_
#define QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_TLS_H_

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "src/controllers/common/cert_renewal.h"
#include "src/controllers/postgrescluster/names.h"
#include "src/runtime/certs.h"

namespace quorum::postgrescluster {

inline constexpr absl::Duration kClusterCaValidity = absl::Hours(24 * 365 * 10);
inline constexpr absl::Duration kServerCertValidity = absl::Hours(24 * 90);
// The Kubernetes cluster domain the long Service names end with.
inline constexpr char kClusterDomain[] = "cluster.local";
// Where the members find the certificate (a Secret volume).
inline constexpr char kPostgresTlsDir[] = "/etc/patroni/tls";

// Every DNS name a client may use for the cluster: each Service as
// <svc>, <svc>.<ns>, <svc>.<ns>.svc, <svc>.<ns>.svc.cluster.local; each pod
// through the headless Service as *.<pods>.<ns>.svc[.cluster.local] (one
// wildcard: scaling needs no new certificate); and localhost for the pod
// itself. Sorted, no duplicates.
std::vector<std::string> ServerCertDnsNames(const PostgresCluster& cluster);

// The pod-template label that says the member's REST API serves HTTPS
// (value "https"). The operator reads the scheme from it: its pod cache keeps
// labels but not the pod spec (runtime::StripPod), and pods made before the
// REST API served HTTPS lack it (HTTP until they are rolled).
inline constexpr char kRestSchemeLabel[] = "postgres.quorum.dev/patroni-api-scheme";

// A member's own DNS name through the headless Service,
// <pod>.<cluster>-pods.<ns>.svc: covered by the certificate's wildcard. Its
// REST API is addressed by it: Patroni's connect address (what the other
// members and patronictl call; resolved by the cluster's DNS) and the name
// the operator checks (connecting to the pod IP).
std::string MemberDnsName(const PostgresCluster& cluster, const std::string& pod);

// The CommonNames of the cluster's CA and of the server certificate: at most
// 64 characters (X.509's limit; namespaces make Service names longer), and
// only informative: clients check the DNS names above.
std::string CaCommonName(const PostgresCluster& cluster);
std::string ServerCertCommonName(const PostgresCluster& cluster);

// The renewal checks, shared with the EtcdCluster's certificates
// (src/controllers/common/cert_renewal.h).
using controllers::RenewalTime;
using ServerCertMemo = controllers::CertRenewalMemo;
inline std::string ServerCertRenewalReason(const std::string& cert_pem, const std::string& key_pem,
                                           const std::string& ca_pem,
                                           const std::vector<std::string>& want_dns,
                                           absl::Time now) {
  return controllers::CertRenewalReason(cert_pem, key_pem, ca_pem, want_dns, now);
}

// The operator's client certificate towards a cluster's Patroni REST API:
// the members run with restapi.verify_client: optional, so every unsafe call
// (switchover, failover, reload, PATCH /config) must present a certificate
// from the cluster's CA besides the basic-auth credentials. Issued in memory
// from the CA (O=quorum-operator, no CommonName, 30 days), never stored, and
// kept per cluster until its CA changes or a third of its lifetime is left.
// Thread-safe. Memory: one certificate per cluster; Forget drops it.
inline constexpr absl::Duration kOperatorClientValidity = absl::Hours(24 * 30);
class OperatorClientCerts {
 public:
  absl::StatusOr<runtime::CertKeyPair> For(const std::string& cluster_key,
                                           const runtime::CertKeyPair& ca, absl::Time now);
  void Forget(const std::string& cluster_key);
  size_t size() const;

 private:
  struct Issued {
    std::string ca_pem;
    runtime::CertKeyPair cert;
    absl::Time renew_at;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, Issued> issued_ ABSL_GUARDED_BY(mu_);
};

// <cluster>-ca: the generated CA (ca.crt, ca.key).
Json BuildCaSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                   const std::string& ca_key_pem);
// <cluster>-tls: ca.crt, tls.crt, tls.key.
Json BuildServerTlsSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                          const std::string& cert_pem, const std::string& key_pem);

// <cluster>-pgbackrest-client (backups only): ca.crt, tls.crt, tls.key. A CA
// of its own whose key is never stored: the one client certificate issued
// with it (CommonName kPgBackRestClientCn) is the only one the members'
// pgBackRest servers will ever accept, and nothing else can be signed.
inline constexpr absl::Duration kPgBackRestClientValidity = absl::Hours(24 * 365 * 10);
Json BuildPgBackRestClientSecret(const PostgresCluster& cluster, const std::string& ca_pem,
                                 const std::string& cert_pem, const std::string& key_pem);

// The Secret the members mount: spec.tls.customSecret or <cluster>-tls.
std::string MountedTlsSecret(const PostgresCluster& cluster);

}  // namespace quorum::postgrescluster

#endif  // QUORUM_SRC_CONTROLLERS_POSTGRESCLUSTER_TLS_H_
